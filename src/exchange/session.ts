import type { Network } from "../config/defaults.ts";
import { attachApprovedBuilder } from "../wallet/builder.ts";
import { HlClient, type HlClientOptions } from "./client.ts";
import type { PaperWorld } from "./paper.ts";

/** A client ready to use from a command: on paper the sim world is reachable (started if needed). */
export interface ClientSession {
  client: HlClient;
  /** Human notes worth printing once (paper wallet created or used, sim world started here). */
  notes: string[];
  /** Close the stream and stop the sim world if this session started it. */
  close(): Promise<void>;
}

/**
 * Open a client for one command or service. On paper: ensure the sim world answers (start it
 * in-process when nothing listens at the URL) and sign with the paper wallet when no key is set.
 */
export async function openClientSession(
  opts: HlClientOptions & {
    network: Network;
    /**
     * For trading loops (strategy engine, WOLF): attach the configured builder fee (BUILDER_ADDRESS,
     * BUILDER_FEE_TENTHS_BPS) only when this account has approved it; otherwise trade without it and
     * say how to approve — an unapproved builder would get every order refused.
     */
    tradingBuilder?: boolean;
  },
): Promise<ClientSession> {
  const client = await HlClient.create(opts);
  const notes: string[] = [];
  let world: PaperWorld | undefined;
  if (client.network === "paper") {
    world = await client.ensurePaperWorld();
    if (world.startedHere)
      notes.push(
        `Started the saved sim world in this process at ${world.url} (saved to DATA_DIR/sim when the command ends).`,
      );
    // The sim world opens (and funds) an account the first time it sees its address in a read.
    if (client.address) await client.clearinghouseState();
    if (client.paperWallet) {
      notes.push(
        client.paperWallet.created
          ? `Created a paper wallet ${client.address} in ${client.paperWallet.path}; later runs trade the same paper account.`
          : `Paper wallet ${client.address} (${client.paperWallet.path}).`,
      );
    }
  }
  if (opts.tradingBuilder && client.address && !opts.builder) {
    const note = await attachApprovedBuilder(client, opts.env ?? process.env);
    if (note) notes.push(note);
  }
  return {
    client,
    notes,
    close: async () => {
      await client.close();
      if (world) await world.close();
    },
  };
}
