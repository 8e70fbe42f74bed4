// Throughput of @mastra/evals scorer.run and of the raw npm libraries it wraps, on rows read from stdin.
// Input JSON: {inputs: string[], outputs: string[], mastraRows: number, rounds: number}
// Output JSON: {name: {rows, seconds, cpuSeconds}} for each measurement. Reuses the parity oracle's node_modules.
import { createRequire } from "node:module";

const require = createRequire(new URL("../../tests/parity/js/package.json", import.meta.url));
const { createToneScorer, createContentSimilarityScorer } = require("@mastra/evals/scorers/prebuilt");
const { createAgentTestRun, createTestMessage } = require("@mastra/evals/scorers/utils");
const Sentiment = require("sentiment");
const stringSimilarity = require("string-similarity");

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { inputs, outputs, mastraRows, rounds } = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const run = (input, output) =>
  createAgentTestRun({
    inputMessages: [createTestMessage({ content: input, role: "user", id: "u" })],
    output: [createTestMessage({ content: output, role: "assistant", id: "a" })],
  });

async function best(n, fn) {
  // Warm the JIT on a few rows, then keep the fastest of `rounds` passes (as the Python side does).
  await fn(Math.min(n, 200));
  // cpuSeconds: user + system CPU time of the process (all its threads), which a loaded machine moves less.
  let seconds = Infinity;
  let cpuSeconds = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    await fn(n);
    const used = process.cpuUsage(cpu);
    seconds = Math.min(seconds, (performance.now() - start) / 1000);
    cpuSeconds = Math.min(cpuSeconds, (used.user + used.system) / 1e6);
  }
  return { rows: n, seconds, cpuSeconds };
}

const tone = createToneScorer({});
const similarity = createContentSimilarityScorer({});
const sentiment = new Sentiment();
const m = Math.min(mastraRows, outputs.length);
const n = outputs.length;
const results = {
  mastraTone: await best(m, async (k) => { for (let i = 0; i < k; i++) await tone.run(run(inputs[i], outputs[i])); }),
  mastraSimilarity: await best(m, async (k) => {
    for (let i = 0; i < k; i++) await similarity.run(run(inputs[i], outputs[i]));
  }),
  npmSentiment: await best(n, async (k) => { for (let i = 0; i < k; i++) sentiment.analyze(outputs[i]); }),
  npmStringSimilarity: await best(n, async (k) => {
    for (let i = 0; i < k; i++) stringSimilarity.compareTwoStrings(inputs[i], outputs[i]);
  }),
};
process.stdout.write(JSON.stringify(results));
