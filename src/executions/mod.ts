/** Executions: for now the staging engine (the executor arrives with the execution issue). */
export { probeStagingEngine } from "./staging.ts";
