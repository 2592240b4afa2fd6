/** A failure the user can act on; its message is one readable line. */
export class UserError extends Error {
  override name = "UserError";
}
