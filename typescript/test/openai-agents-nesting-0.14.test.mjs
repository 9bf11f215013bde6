// Agents-as-tools and handoffs in a fenced run on @openai/agents 0.14 (Node 20): fixtures/openai-agents-nesting-suite.mjs.
import * as sdk from 'openai-agents-v014';
import { openAIAgentsNestingSuite } from '../fixtures/openai-agents-nesting-suite.mjs';

openAIAgentsNestingSuite(sdk, 'OpenAI Agents SDK 0.14');
