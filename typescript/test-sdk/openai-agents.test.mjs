// The OpenAI Agents SDK 0.20 (on openai 7, Node 22) fenced in process: fixtures/openai-agents-suite.mjs.
import * as sdk from '@openai/agents';
import { openAIAgentsSuite } from '../fixtures/openai-agents-suite.mjs';

openAIAgentsSuite(sdk, 'OpenAI Agents SDK 0.20');
