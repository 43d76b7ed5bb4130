package stripe

import (
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/stripe/stripe-go/v82"
)
