package model

import "testing"

// TestRedactorRule: each kind of fixture identifier (subject, capability,
// task, its trace, "trace-" and its id, an actor) becomes its reference;
// an identifier inside a longer one is replaced only as part of it; a
// reference is not rewritten by an identifier its hex digits spell (the
// task "5e" is inside O-7's reference: the pass is one, from the left);
// a string without identifiers is returned as it was. An identifier is
// replaced only as a whole token: the actor "desk" is kept in the table
// desk_checkpoint, the words "desks" and "desk2" and in the id
// TCK-10420, and replaced where '-', ':', '.' or a space ends it; the
// task TCK-1042 (it has a digit) is replaced where a key embeds it, after
// '-' or '_', so no id a key is built from leaks.
func TestRedactorRule(t *testing.T) {
	rd := newRedactor(&Fixture{
		Subjects:     []Subject{{ID: "O-7"}},
		Capabilities: []Capability{{ID: "CAP-1", Actor: "op-27"}},
		Tasks:        []Task{{ID: "refund-O-7", Trace: "tr-9", Actor: "op-27"}, {ID: "5e"}, {ID: "TCK-1042", Actor: "desk"}},
	})
	for _, c := range []struct{ in, want string }{
		{"subject O-7", "subject ref-5e1b047a"},
		{"capability CAP-1 of op-27", "capability ref-5c043a09 of ref-8c316d86"},
		{"key refund-O-7:charge", "key ref-12f6db0f:charge"},
		{"trace tr-9 and trace-refund-O-7", "trace ref-a0ffaaa9 and ref-f2fa3afb"},
		{"task 5e after O-7", "task ref-58e0fcef after ref-5e1b047a"},
		{"no identifier here", "no identifier here"},
		{"INSERT INTO desk_checkpoint", "INSERT INTO desk_checkpoint"},
		{"desks, desk2, TCK-10420, xTCK-1042", "desks, desk2, TCK-10420, xTCK-1042"},
		{"key credit-TCK-1042 by desk.", "key credit-ref-28d6239b by ref-8b030cb8."},
		{"key credit_TCK-1042:1 of desk-bot", "key credit_ref-28d6239b:1 of ref-8b030cb8-bot"},
		{"trace-TCK-1042 (desk)", "ref-b784ca97 (ref-8b030cb8)"},
	} {
		if got := rd.redact(c.in); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := ref("inv-1042"); got != "ref-f1572fc4" {
		t.Errorf("ref(inv-1042) = %q", got)
	}
}
