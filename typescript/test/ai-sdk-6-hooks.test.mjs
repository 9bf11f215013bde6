// The approval flow and input hooks of the Vercel AI SDK 6 (Node 20) around fenced tools: fixtures/ai-sdk-hooks-suite.mjs.
import * as ai from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { aiSdkHooksSuite } from '../fixtures/ai-sdk-hooks-suite.mjs';

aiSdkHooksSuite(ai, MockLanguageModelV3, 'Vercel AI SDK 6');
