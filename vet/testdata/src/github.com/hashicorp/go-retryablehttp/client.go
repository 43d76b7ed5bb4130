// Package retryablehttp is a stub of go-retryablehttp: a client whose Do
// retries, over requests that wrap net/http's.
package retryablehttp

import (
	"net/http"
)

// Request wraps an *http.Request.
type Request struct {
	*http.Request
}

// NewRequest makes a request.
func NewRequest(method, url string, rawBody any) (*Request, error) {
	r, err := http.NewRequest(method, url, nil)
	return &Request{r}, err
}

// Client retries a request up to RetryMax times.
type Client struct {
	HTTPClient *http.Client
	RetryMax   int
}

// NewClient returns a client.
func NewClient() *Client { return &Client{HTTPClient: &http.Client{}, RetryMax: 4} }

// Do sends req, retrying.
func (c *Client) Do(req *Request) (*http.Response, error) { return c.HTTPClient.Do(req.Request) }
