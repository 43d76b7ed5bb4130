// Package strictjson decodes faultline's JSON files strictly, where
// encoding/json is lenient: a key must match its field's json name exactly
// (encoding/json also accepts "Version" for "version"), a key may appear
// only once in an object (encoding/json lets the last one win), every key
// must name a field, and the document must be one JSON object (not null,
// an array or a scalar) with nothing after it.
//
// Entry points:
//
//   - [Decode] checks data against the shape of v, then decodes it into v.
//   - [Validate] checks only the form: one well-formed object with no
//     repeated key at any depth.
//
// Errors name the problem and, below the top level, where it is
// ("faults[2]: key \"kind\" appears twice"). Syntax errors give the line
// and column.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// bom is the UTF-8 encoding of U+FEFF, the byte-order mark some editors
// put at the start of a file.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Decode decodes data, which must hold exactly one JSON object, into v (a
// non-nil pointer). Before decoding it walks the document against v's
// type: at every object that fills a struct (also inside slices, arrays,
// maps and pointers), each key must be the exact json name of a field and
// appear once; in an object that fills a map, keys are free but must not
// repeat. Values of json.RawMessage, interface types and types with their
// own UnmarshalJSON are checked for repeated keys only (their own decoder
// checks the rest). It returns an error for an empty document, a leading
// UTF-8 byte-order mark, a top level that is not an object, malformed or
// truncated JSON, trailing data, and each failed check above.
func Decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic(fmt.Sprintf("strictjson: Decode needs a non-nil pointer, not %T", v))
	}
	if err := walk(data, rv.Type().Elem()); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describe(data, err)
	}
	return nil
}

// Validate checks that data holds exactly one well-formed JSON object with
// no repeated key in any object at any depth, and returns the error Decode
// would return for each of those problems.
func Validate(data []byte) error {
	return walk(data, nil)
}

// walk checks data against t (nil: form only).
func walk(data []byte, t reflect.Type) error {
	if bytes.HasPrefix(data, bom) {
		return errors.New("the file starts with a UTF-8 byte-order mark; save it without one")
	}
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return errors.New("empty input: the file is empty, want a JSON object")
	}
	if !json.Valid(data) {
		// Name the first syntax error, or the data after a whole value.
		var raw json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
			return describe(data, err)
		}
		return errors.New("trailing data after the JSON object")
	}
	w := &walker{data: data}
	w.space()
	if c := data[w.pos]; c != '{' {
		return fmt.Errorf("the top level must be a JSON object, not %s", kindOf(c))
	}
	return w.value(t)
}

// walker scans data, which json.Valid accepted, from pos; path is where
// it is, for errors.
type walker struct {
	data []byte
	pos  int
	path []step
}

// step is one step of a path: a field name (".name"), a map key
// ("[\"key\"]") or an index ("[3]").
type step struct {
	how   byte // '.', '"' or '#'
	name  []byte
	index int
}

// where returns the path, as "faults[2].kind", followed by ": ", or ""
// at the top level.
func (w *walker) where() string {
	var b strings.Builder
	for _, s := range w.path {
		switch s.how {
		case '.':
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(s.name)
		case '"':
			b.WriteString("[" + strconv.Quote(string(s.name)) + "]")
		default:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + ": "
}

func (w *walker) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\r', '\n':
			w.pos++
		default:
			return
		}
	}
}

// str reads the string at pos and returns its value (for a string
// without escapes or non-ASCII bytes, a sub-slice of data).
func (w *walker) str() []byte {
	start := w.pos
	plain := true
	i := start + 1
	for ; w.data[i] != '"'; i++ {
		if c := w.data[i]; c == '\\' {
			plain = false
			i++
		} else if c >= 0x80 {
			plain = false
		}
	}
	w.pos = i + 1
	if plain {
		return w.data[start+1 : i]
	}
	var s string
	if err := json.Unmarshal(w.data[start:w.pos], &s); err != nil {
		panic("strictjson: a string json.Valid accepted does not decode: " + err.Error())
	}
	return []byte(s)
}

// keySet is the set of keys an object has shown so far: a list while it
// is short, a map beyond.
type keySet struct {
	list [][]byte
	m    map[string]bool
}

// add adds key and reports whether it was new.
func (k *keySet) add(key []byte) bool {
	if k.m != nil {
		if k.m[string(key)] {
			return false
		}
		k.m[string(key)] = true
		return true
	}
	for _, x := range k.list {
		if bytes.Equal(x, key) {
			return false
		}
	}
	k.list = append(k.list, key)
	if len(k.list) > 16 {
		k.m = make(map[string]bool, 2*len(k.list))
		for _, x := range k.list {
			k.m[string(x)] = true
		}
	}
	return true
}

// scalar skips the number or literal at pos.
func (w *walker) scalar() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return
		}
		w.pos++
	}
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// free reports whether values of t are checked only for repeated keys.
func free(t reflect.Type) bool {
	return t == nil || t == rawMessageType || t.Kind() == reflect.Interface ||
		t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
}

// value checks the value at pos against t and moves past it.
func (w *walker) value(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer && !free(t) {
		t = t.Elem()
	}
	if t != nil && free(t) {
		t = nil
	}
	switch w.data[w.pos] {
	case '{':
		if t != nil && t.Kind() != reflect.Struct && t.Kind() != reflect.Map {
			t = nil // a type mismatch: encoding/json reports it
		}
		return w.object(t)
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		w.pos++
		w.space()
		if w.data[w.pos] == ']' {
			w.pos++
			return nil
		}
		w.path = append(w.path, step{how: '#'})
		for i := 0; ; i++ {
			w.space()
			w.path[len(w.path)-1].index = i
			if err := w.value(elem); err != nil {
				return err
			}
			w.space()
			c := w.data[w.pos]
			w.pos++ // ',' or ']'
			if c == ']' {
				w.path = w.path[:len(w.path)-1]
				return nil
			}
		}
	case '"':
		w.str()
	default:
		w.scalar() // encoding/json checks a scalar's type
	}
	return nil
}

// object checks the object at pos against t (a struct, a map, or nil for
// free-form) and moves past it.
func (w *walker) object(t reflect.Type) error {
	var fields map[string]field
	if t != nil && t.Kind() == reflect.Struct {
		fields = fieldsOf(t)
	}
	w.pos++ // '{'
	w.space()
	if w.data[w.pos] == '}' {
		w.pos++
		return nil
	}
	var seen keySet
	w.path = append(w.path, step{})
	for {
		w.space()
		key := w.str()
		if !seen.add(key) {
			w.path = w.path[:len(w.path)-1]
			return fmt.Errorf("%skey %q appears twice", w.where(), key)
		}
		var elem reflect.Type
		how := byte('.')
		switch {
		case fields != nil:
			f, ok := fields[string(key)]
			if !ok {
				w.path = w.path[:len(w.path)-1]
				for name := range fields {
					if strings.EqualFold(name, string(key)) {
						return fmt.Errorf("%sfield %q does not match %q: keys are case-sensitive", w.where(), key, name)
					}
				}
				return fmt.Errorf("%sunknown field %q", w.where(), key)
			}
			elem = f.typ
		case t != nil && t.Kind() == reflect.Map:
			elem, how = t.Elem(), '"'
		case !identifier(key): // a member of a free-form object
			how = '"'
		}
		w.path[len(w.path)-1] = step{how: how, name: key}
		w.space()
		w.pos++ // ':'
		w.space()
		if err := w.value(elem); err != nil {
			return err
		}
		w.space()
		c := w.data[w.pos]
		w.pos++ // ',' or '}'
		if c == '}' {
			w.path = w.path[:len(w.path)-1]
			return nil
		}
	}
}

// identifier reports whether key reads well after a dot in a path.
func identifier(key []byte) bool {
	for _, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return len(key) > 0
}

// kindOf names the JSON kind of the value that starts with byte c.
func kindOf(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "a number"
}

// field is one JSON member of a struct.
type field struct {
	typ   reflect.Type
	depth int
}

var fieldCache sync.Map // reflect.Type -> map[string]field

// fieldsOf returns the JSON members of struct type t by encoding/json's
// rules: the json tag's name or the Go name, "-" skipped, unexported
// fields skipped, and the fields of untagged embedded structs promoted
// (a shallower field hides a deeper one of the same name).
func fieldsOf(t reflect.Type) map[string]field {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]field)
	}
	m := map[string]field{}
	collect(t, 0, m, map[reflect.Type]bool{})
	fieldCache.Store(t, m)
	return m
}

func collect(t reflect.Type, depth int, m map[string]field, visiting map[reflect.Type]bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				collect(et, depth+1, m, visiting)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if old, ok := m[name]; ok && old.depth <= depth {
			continue
		}
		m[name] = field{typ: sf.Type, depth: depth}
	}
}

// describe turns a decoding error into a message for people: a syntax
// error with its line and column, a truncated document, or a type
// mismatch with the field it is at.
func describe(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if int(se.Offset) >= len(bytes.TrimRight(data, " \t\r\n")) {
			return errors.New("truncated JSON: the object is not closed")
		}
		line, col := position(data, int(se.Offset))
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("truncated JSON: the object is not closed")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: want %s, not a JSON %s", te.Field, goKind(te.Type), te.Value)
	}
	return err
}

// position returns the 1-based line and column of the byte before offset
// (a SyntaxError's offset is just past the bad byte).
func position(data []byte, offset int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < offset-1 && i < len(data); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// goKind names what a Go type accepts in JSON terms.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}
