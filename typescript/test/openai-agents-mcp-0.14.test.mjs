// MCP tools of the OpenAI Agents SDK 0.14 (openai 6, the machine's Node) against the Node server
// fence: fixtures/openai-agents-mcp-suite.mjs.
import * as sdk from 'openai-agents-v014';
import { openAIAgentsMcpSuite } from '../fixtures/openai-agents-mcp-suite.mjs';

openAIAgentsMcpSuite(sdk, 'OpenAI Agents SDK 0.14 over MCP');
