import { parentPort, workerData } from "node:worker_threads";
import { runSweepTask, type SweepBase, type SweepTask } from "./sweep-job.ts";

/** A sweep worker: gets the shared base once, then runs the tasks it is sent one at a time. */
const base = workerData as SweepBase;
parentPort?.on("message", (task: SweepTask) => {
  void runSweepTask(base, task).then((outcome) => parentPort?.postMessage(outcome));
});
