// The OpenAI Agents SDK 0.14 (the last on openai 6, which runs on Node 18 and newer) fenced in
// process, on the machine's Node: fixtures/openai-agents-suite.mjs.
import * as sdk from 'openai-agents-v014';
import { openAIAgentsSuite } from '../fixtures/openai-agents-suite.mjs';

openAIAgentsSuite(sdk, 'OpenAI Agents SDK 0.14');
