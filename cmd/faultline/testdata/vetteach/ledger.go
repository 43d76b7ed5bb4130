// Package ledger retries a call retrykey does not know: (*Ledger).Post
// makes an effect (the ledger deduplicates by the idempotency key), and
// Settle builds the key from the attempt counter. "faultline vet" finds
// it only when taught: --retrykey.consequential='(*example.com/ledger.Ledger).Post'.
package ledger

import "fmt"

// Ledger posts entries, once per idempotency key.
type Ledger struct{ seen map[string]bool }

// Option sets a field of a post.
type Option func(*post)

type post struct{ key string }

// WithIdempotencyKey sets the key the ledger deduplicates by.
func WithIdempotencyKey(k string) Option { return func(p *post) { p.key = k } }

// Post books amount unless a post of the same key was booked.
func (l *Ledger) Post(amount int, opts ...Option) error {
	var p post
	for _, o := range opts {
		o(&p)
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[p.key] = true
	return nil
}

// Settle posts an invoice's amount, retrying up to three times.
func Settle(l *Ledger, invoice string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = l.Post(5, WithIdempotencyKey(fmt.Sprintf("%s:%d", invoice, attempt))); err == nil {
			return nil
		}
	}
	return err
}
