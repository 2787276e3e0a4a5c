// Entry point that runs the CLI with the process arguments (bin/videorag.js runs the compiled copy of this module's main).
import { main } from "./main.js";

await main(process.argv.slice(2));
