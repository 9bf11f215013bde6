// The Vercel AI SDK 7 (Node 22) fenced in process: fixtures/ai-sdk-suite.mjs, with MockLanguageModelV4.
import * as ai from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { aiSdkSuite } from '../fixtures/ai-sdk-suite.mjs';

aiSdkSuite(ai, MockLanguageModelV4, 'Vercel AI SDK 7');
