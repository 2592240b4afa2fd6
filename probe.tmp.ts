import { startSimWorld } from "./src/sim/world.ts";
import { probeInfo } from "./src/exchange/paper.ts";
const world = await startSimWorld({ port: 0, seed: 3, speed: 50 });
console.log(world.url);
let t = Date.now(); console.log(await probeInfo(world.url, 500), Date.now() - t);
t = Date.now(); console.log(await probeInfo(world.url, 3000), Date.now() - t);
await world.close();
