// A Vercel AI SDK call whose tool is fenced: a superseded run's call never reaches it.
// Type-checked in the build, and run by test-sdk/examples.test.mjs with the SDK's mock model.
import { generateText, isStepCount, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import { AgentToolFence, InMemoryFenceGuard, type FencedRun, type TokenVerifier } from '@leasehold/fencing';
import { fenceAiSdkTools, runStopOf, runStopped } from '@leasehold/fencing/ai-sdk';

/** The concierge: `model` is any AI SDK language model. */
export function concierge(verifier: TokenVerifier, model: LanguageModel, booked: string[]) {
  // region ai-sdk-setup
  const fence = new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier }) });
  const tools = {
    bookTable: tool({
      description: 'Books a restaurant table',
      inputSchema: z.object({ name: z.string() }),
      execute: async ({ name }) => {
        booked.push(name); // the side effect: only an admitted call gets here
        return `booked for ${name}`;
      },
    }),
  };
  // endregion

  async function chat(lease: FencedRun, prompt: string): Promise<string | undefined> {
    // region ai-sdk-run
    await fence.startRun(lease); // calls of older runs of the session are refused from now on
    const result = await generateText({
      model,
      tools: fenceAiSdkTools(fence, tools, lease), // this run's tools, fenced
      stopWhen: [isStepCount(10), runStopped], // the loop ends once a call was refused
      prompt,
    });
    const stop = runStopOf(result.steps);
    if (stop !== undefined) {
      // A newer run of this session took over (or this lease was lost): the tool did not run.
      console.log(`stopped (${stop.refusal.reason}): ${stop.messageForModel()}`);
      return undefined;
    }
    return result.text;
    // endregion
  }
  return { fence, chat };
}
