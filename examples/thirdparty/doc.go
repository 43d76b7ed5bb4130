// Package thirdparty is the module where faultline is tried on real
// third-party clients (payment, LLM and job-queue SDKs) left unmodified. It
// is a module of its own so that faultline's own go.mod requires none of
// them; .ci/run tests it with go test ./... from this folder.
//
// Each client's example is a package under this folder; see docs/production.md:
//
//   - stripeagent: a refund agent over stripe-go (default, jittered retries)
//     with a planted fresh-key loop, found through httpfault; stripe-go
//     decodes httpfault.StripeError's answers;
//   - openaiagent: a batch agent over openai-go, the same; openai-go decodes
//     httpfault.OpenAIError's answers and obeys their retry headers;
//   - anthropicagent: anthropic-sdk-go decodes httpfault.AnthropicError's and
//     AnthropicOverloaded's answers and obeys their retry headers;
//   - scriptedmodel: a scripted model speaking Anthropic's Messages API,
//     and llmagent, a refund agent over anthropic-sdk-go whose model's
//     replies are a fault boundary (docs/llm-agents.md).
//
// scripts/thirdparty-jitter.sh prints the 20-fresh-run table of the two
// planted agents.
package thirdparty
