// Package anthropicagent holds the test that anthropic-sdk-go, left
// unmodified, decodes httpfault's Anthropic answers (AnthropicError,
// AnthropicOverloaded) as its own *anthropic.Error and retries exactly
// those the headers tell it to, after the wait they name.
package anthropicagent
