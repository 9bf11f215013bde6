// The Vercel AI SDK 6 (which runs on Node 18 and newer) fenced in process, on the machine's Node:
// fixtures/ai-sdk-suite.mjs, with MockLanguageModelV3.
import * as ai from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { aiSdkSuite } from '../fixtures/ai-sdk-suite.mjs';

aiSdkSuite(ai, MockLanguageModelV3, 'Vercel AI SDK 6');
