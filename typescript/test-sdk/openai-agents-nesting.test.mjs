// Agents-as-tools and handoffs in a fenced run on @openai/agents 0.20 (Node 22): fixtures/openai-agents-nesting-suite.mjs.
import * as sdk from '@openai/agents';
import { openAIAgentsNestingSuite } from '../fixtures/openai-agents-nesting-suite.mjs';

openAIAgentsNestingSuite(sdk, 'OpenAI Agents SDK 0.20');
