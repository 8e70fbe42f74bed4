// Reference oracle: runs the real @mastra/evals scorers on cases read as JSON from stdin.
// Input: [{kind: "tone"|"similarity", output: string[], input?: string[], referenceTone?, ignoreCase?, ignoreWhitespace?}]
// Output: the same list of results (preprocessStepResult, analyzeStepResult, score) as JSON on stdout.
import { createToneScorer, createContentSimilarityScorer } from "@mastra/evals/scorers/prebuilt";
import { createAgentTestRun, createTestMessage } from "@mastra/evals/scorers/utils";

const messages = (texts, role) =>
  texts.map((content, i) => createTestMessage({ content, role, id: `${role}-${i}` }));

async function runCase(c) {
  const scorer =
    c.kind === "tone"
      ? createToneScorer(c.referenceTone === undefined ? {} : { referenceTone: c.referenceTone })
      : createContentSimilarityScorer({ ignoreCase: c.ignoreCase, ignoreWhitespace: c.ignoreWhitespace });
  const run = createAgentTestRun({
    inputMessages: messages(c.input ?? [], "user"),
    output: messages(c.output, "assistant"),
  });
  const r = await scorer.run(run);
  return { preprocessStepResult: r.preprocessStepResult ?? null, analyzeStepResult: r.analyzeStepResult ?? null, score: r.score };
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const results = [];
for (const c of cases) results.push(await runCase(c));
process.stdout.write(JSON.stringify(results));
