// MCP tools of the OpenAI Agents SDK 0.20 (Node 22) against the Node server fence: fixtures/openai-agents-mcp-suite.mjs.
import * as sdk from '@openai/agents';
import { openAIAgentsMcpSuite } from '../fixtures/openai-agents-mcp-suite.mjs';

openAIAgentsMcpSuite(sdk, 'OpenAI Agents SDK 0.20 over MCP');
