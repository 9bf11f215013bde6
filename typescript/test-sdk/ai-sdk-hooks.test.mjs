// The approval flow and input hooks of the Vercel AI SDK 7 (Node 22) around fenced tools: fixtures/ai-sdk-hooks-suite.mjs.
import * as ai from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { aiSdkHooksSuite } from '../fixtures/ai-sdk-hooks-suite.mjs';

aiSdkHooksSuite(ai, MockLanguageModelV4, 'Vercel AI SDK 7');
