package sqlfault

import (
	"strconv"
	"strings"
	"unicode"
)

// Op is what a statement is to the run: which crossing, if any, it makes.
type Op int

const (
	// OpNone passes the statement through: no crossing (schema changes,
	// reads of other tables, the oracle's own reads).
	OpNone Op = iota
	// OpEffect is a consequential write: outside a transaction the
	// statement crosses tool.commit itself; inside one, the transaction's
	// Commit crosses tool.commit for every effect it holds.
	OpEffect
	// OpCheckpointWrite writes the agent's checkpoint: it crosses
	// checkpoint.write.
	OpCheckpointWrite
	// OpCheckpointLoad reads the agent's checkpoint: it crosses
	// checkpoint.load.
	OpCheckpointLoad
)

// String names the op as the package documentation does.
func (o Op) String() string {
	switch o {
	case OpNone:
		return "none"
	case OpEffect:
		return "effect"
	case OpCheckpointWrite:
		return "checkpoint.write"
	case OpCheckpointLoad:
		return "checkpoint.load"
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Class is a statement's classification: its op and the table it acts on
// ("" when unknown; stale_checkpoint needs the checkpoint table to serve
// its previous rows).
type Class struct {
	Op    Op
	Table string
}

// Classifier classifies one statement's query text.
type Classifier func(query string) Class

// TableClassifier is the default classifier: an INSERT, UPDATE, DELETE or
// REPLACE of checkpointTable is a checkpoint.write, a SELECT from it a
// checkpoint.load; an INSERT, UPDATE, DELETE or REPLACE of any other
// table is an effect; anything else (DDL, other SELECTs, PRAGMA, a WITH
// statement) is none. Table names compare case-insensitively, without
// quotes ("x", `x`, [x]) and without a schema prefix. An empty
// checkpointTable classifies no statement as a checkpoint.
func TableClassifier(checkpointTable string) Classifier {
	cp := strings.ToLower(checkpointTable)
	return func(query string) Class {
		verb, table := Parse(query)
		isCP := cp != "" && table == cp
		switch verb {
		case "insert", "update", "delete", "replace":
			if isCP {
				return Class{Op: OpCheckpointWrite, Table: table}
			}
			if table == "" {
				return Class{}
			}
			return Class{Op: OpEffect, Table: table}
		case "select":
			if isCP {
				return Class{Op: OpCheckpointLoad, Table: table}
			}
		}
		return Class{}
	}
}

// Parse returns a statement's leading verb (lower case: "insert",
// "select", ...) and the table it names (lower case, unquoted, without a
// schema prefix): the INTO table of an INSERT or REPLACE, the table of an
// UPDATE, the FROM table of a DELETE or of a SELECT (its first FROM). It
// returns "" for what it cannot find. Comments (-- and /* */) are skipped.
func Parse(query string) (verb, table string) {
	toks := tokens(query, 64)
	if len(toks) == 0 {
		return "", ""
	}
	verb = strings.ToLower(toks[0])
	next := func(i int) string {
		if i < len(toks) {
			return unquote(toks[i])
		}
		return ""
	}
	after := func(word string, from int) string {
		for i := from; i < len(toks); i++ {
			if strings.EqualFold(toks[i], word) {
				return next(i + 1)
			}
		}
		return ""
	}
	switch verb {
	case "insert", "replace":
		table = after("into", 1)
	case "update":
		i := 1
		if strings.EqualFold(next(1), "or") {
			i = 3
		}
		table = next(i)
	case "delete", "select":
		table = after("from", 1)
	}
	if j := strings.LastIndexByte(table, '.'); j >= 0 {
		table = table[j+1:]
	}
	return verb, strings.ToLower(table)
}

// tokens splits up to max words, quoted names and punctuation of a query.
func tokens(q string, max int) []string {
	var out []string
	for i := 0; i < len(q) && len(out) < max; {
		c := q[i]
		switch {
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 4
		case unicode.IsSpace(rune(c)):
			i++
		case c == '\'':
			j := strings.IndexByte(q[i+1:], '\'')
			if j < 0 {
				return append(out, q[i:])
			}
			out = append(out, q[i:i+j+2])
			i += j + 2
		case c == '"' || c == '`' || c == '[' || isWord(c):
			// a name: word or quoted segments joined by dots
			j := i
			for j < len(q) {
				switch ch := q[j]; {
				case ch == '"' || ch == '`' || ch == '[':
					closer := ch
					if ch == '[' {
						closer = ']'
					}
					k := strings.IndexByte(q[j+1:], closer)
					if k < 0 {
						return append(out, q[i:])
					}
					j += k + 2
				case isWord(ch) || ch == '.':
					j++
				default:
					goto name
				}
			}
		name:
			out = append(out, q[i:j])
			i = j
		default:
			out = append(out, q[i:i+1])
			i++
		}
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// unquote strips name quotes anywhere in a possibly qualified name.
func unquote(s string) string {
	return strings.NewReplacer(`"`, "", "`", "", "[", "", "]", "").Replace(s)
}
