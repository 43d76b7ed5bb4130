package sqlfault

import (
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// OpRefuse is a statement the classifier cannot tell: it is not run;
	// the run ends with an error naming it (Calls.Fail), which the
	// caller gets too.
	OpRefuse
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
	case OpRefuse:
		return "refuse"
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Class is a statement's classification: its op and the table it acts on
// ("" when unknown; stale_checkpoint needs the checkpoint table to serve
// its previous rows).
type Class struct {
	Op    Op
	Table string
	// why is the default classifier's reason for OpRefuse
	why string
}

// Classifier classifies one statement's query text.
type Classifier func(query string) Class

// TableClassifier is the default classifier: a write of checkpointTable
// is a checkpoint.write, a SELECT from it a checkpoint.load, a write of
// another table an effect; DDL, other SELECTs, PRAGMA and transaction
// control are none. A write is an INSERT (upserts included), UPDATE,
// DELETE, REPLACE, UPSERT, MERGE or TRUNCATE, alone or in a WITH; a batch
// is its writes. A write whose table it cannot find, a batch writing both
// kinds, and an unknown statement (CALL, DO...) are OpRefuse. Names
// compare case-insensitively, unquoted, without a schema prefix; an empty
// checkpointTable makes no checkpoints. The rules: docs/adapters-sql.md.
func TableClassifier(checkpointTable string) Classifier {
	cp := strings.ToLower(checkpointTable)
	// a program sends the same few query texts over and over: their
	// classes are kept (up to maxClassified of them)
	var mu sync.Mutex
	seen := map[string]Class{}
	return func(query string) Class {
		mu.Lock()
		c, ok := seen[query]
		mu.Unlock()
		if ok {
			return c
		}
		c = classifyQuery(query, cp)
		mu.Lock()
		if len(seen) >= maxClassified {
			clear(seen)
		}
		seen[query] = c
		mu.Unlock()
		return c
	}
}

// maxClassified is the most query texts a TableClassifier keeps the
// class of.
const maxClassified = 1024

// classifyQuery is TableClassifier's class of a query.
func classifyQuery(query, cp string) Class {
	var effect, write, load Class
	for _, st := range statements(tokens(query, -1)) {
		c := classifyStatement(st, cp)
		switch {
		case c.Op == OpRefuse:
			return c
		case c.Op == OpEffect && effect.Op == OpNone:
			effect = c
		case c.Op == OpCheckpointWrite && write.Op == OpNone:
			write = c
		case c.Op == OpCheckpointLoad && load.Op == OpNone:
			load = c
		}
	}
	switch {
	case effect.Op != OpNone && write.Op != OpNone:
		return Class{Op: OpRefuse, why: "a batch writes both the checkpoint table " + write.Table + " and " + effect.Table + "; send them as separate statements"}
	case effect.Op != OpNone:
		return effect
	case write.Op != OpNone:
		return write
	}
	return load
}

// writeVerbs are the verbs of a statement that writes, and where its
// table is named.
var writeVerbs = map[string]string{"insert": "into", "replace": "into", "upsert": "into", "merge": "into",
	"update": "", "delete": "from", "truncate": ""}

// noneVerbs are the verbs of a statement that neither writes nor loads a
// checkpoint (SELECT from another table aside).
var noneVerbs = map[string]bool{"select": true, "values": true, "pragma": true, "create": true, "drop": true, "alter": true,
	"begin": true, "start": true, "commit": true, "end": true, "rollback": true, "savepoint": true, "release": true,
	"explain": true, "analyze": true, "vacuum": true, "attach": true, "detach": true, "reindex": true, "set": true,
	"show": true, "grant": true, "revoke": true, "comment": true, "checkpoint": true, "listen": true, "notify": true,
	"unlisten": true, "lock": true, "discard": true, "reset": true, "prepare": true, "deallocate": true, "declare": true,
	"fetch": true, "move": true, "close": true, "use": true, "describe": true, "desc": true}

// classifyStatement classifies one statement's tokens.
func classifyStatement(toks []string, cp string) Class {
	verb, table := parse(toks)
	if verb == "with" {
		return classifyWith(toks, cp)
	}
	refuse := func(why string) Class {
		return Class{Op: OpRefuse, why: why + ": " + strings.Join(toks[:min(len(toks), 12)], " ")}
	}
	switch _, w := writeVerbs[verb]; {
	case verb == "":
		return Class{}
	case w && table == "":
		return refuse("a " + strings.ToUpper(verb) + " whose table the classifier cannot find")
	case w && cp != "" && table == cp:
		return Class{Op: OpCheckpointWrite, Table: table}
	case w:
		return Class{Op: OpEffect, Table: table}
	case verb == "select" && cp != "" && table == cp:
		return Class{Op: OpCheckpointLoad, Table: table}
	case noneVerbs[verb]:
		return Class{}
	}
	return refuse("a statement the classifier does not know (" + strings.ToUpper(verb) + ")")
}

// classifyWith classifies a WITH statement: by its main statement when
// that writes, else by the first CTE that writes, else by its main
// statement.
func classifyWith(toks []string, cp string) Class {
	depth := 0
	var cte *Class
	for i := 1; i < len(toks); i++ {
		switch t := strings.ToLower(toks[i]); {
		case t == "(":
			depth++
		case t == ")":
			depth--
		case depth == 0 && (noneVerbs[t] || writeVerbs[t] != "" || t == "update" || t == "truncate") && (i+1 == len(toks) || toks[i+1] != "("):
			main := classifyStatement(toks[i:], cp)
			if main.Op == OpEffect || main.Op == OpCheckpointWrite || main.Op == OpRefuse || cte == nil {
				return main
			}
			return *cte
		case depth > 0 && toks[i-1] == "(" && cte == nil:
			if _, w := writeVerbs[t]; w {
				end := i
				for d := 0; end < len(toks) && d >= 0; end++ {
					switch toks[end] {
					case "(":
						d++
					case ")":
						d--
					}
				}
				c := classifyStatement(toks[i:end-1], cp)
				cte = &c
			}
		}
	}
	return Class{Op: OpRefuse, why: "a WITH statement without a main statement the classifier can find: " + strings.Join(toks[:min(len(toks), 12)], " ")}
}

// statements splits tokens at top-level semicolons, dropping empty
// statements.
func statements(toks []string) [][]string {
	var out [][]string
	start, depth := 0, 0
	for i, t := range toks {
		switch t {
		case "(":
			depth++
		case ")":
			depth--
		case ";":
			if depth <= 0 {
				if i > start {
					out = append(out, toks[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

// Parse returns a statement's leading verb (lower case: "insert",
// "select", ...) and the table it names (lower case, unquoted, without a
// schema prefix): the INTO table of an INSERT, REPLACE, UPSERT or MERGE,
// the table of an UPDATE or TRUNCATE, the FROM table of a DELETE or of a
// SELECT (its first FROM). It returns "" for what it cannot find. A
// leading byte-order mark and comments (-- and /* */) are skipped; of a
// batch, only the first statement is read.
func Parse(query string) (verb, table string) {
	toks := tokens(query, 64)
	if i := slices.Index(toks, ";"); i >= 0 {
		toks = toks[:i]
	}
	return parse(toks)
}

// parse is Parse over one statement's tokens.
func parse(toks []string) (verb, table string) {
	if len(toks) == 0 {
		return "", ""
	}
	verb = strings.ToLower(toks[0])
	next := func(i int) string {
		if i < len(toks) && toks[i] != "(" && toks[i] != ";" {
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
	case "insert", "replace", "upsert":
		table = after("into", 1)
	case "merge":
		if table = after("into", 1); table == "" {
			table = next(1)
		}
	case "update":
		i := 1
		if strings.EqualFold(next(1), "or") {
			i = 3
		}
		if strings.EqualFold(next(i), "only") {
			i++
		}
		table = next(i)
	case "truncate":
		i := 1
		if strings.EqualFold(next(1), "table") {
			i = 2
		}
		table = next(i)
	case "delete":
		if table = after("from", 1); table == "" {
			table = next(1)
		}
		if strings.EqualFold(table, "only") {
			table = after("only", 1)
		}
	case "select":
		table = after("from", 1)
	}
	if j := strings.LastIndexByte(table, '.'); j >= 0 {
		table = table[j+1:]
	}
	return verb, strings.ToLower(table)
}

// tokens splits up to max words, quoted names and punctuation of a query
// (max < 0: all of them), past a leading byte-order mark.
func tokens(q string, max int) []string {
	var out []string
	q = strings.TrimPrefix(q, "\ufeff")
	for i := 0; i < len(q) && (max < 0 || len(out) < max); {
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
			// a string literal; '' inside it is a quote
			j := i + 1
			for {
				k := strings.IndexByte(q[j:], '\'')
				if k < 0 {
					return append(out, q[i:])
				}
				j += k + 1
				if j >= len(q) || q[j] != '\'' {
					break
				}
				j++
			}
			out = append(out, q[i:j])
			i = j
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
	if !strings.ContainsAny(s, "\"`[]") {
		return s
	}
	return unquoter.Replace(s)
}

var unquoter = strings.NewReplacer(`"`, "", "`", "", "[", "", "]", "")
