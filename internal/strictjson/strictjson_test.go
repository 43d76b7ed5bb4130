package strictjson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/internal/strictjson"
)

type inner struct {
	Name string `json:"name"`
	N    int    `json:"n,omitempty"`
}

type base struct {
	Shadowed int    `json:"shadowed"`
	Promoted string `json:"promoted"`
}

type doc struct {
	base
	Version  *int              `json:"version"`
	Items    []inner           `json:"items"`
	Ptr      *inner            `json:"ptr"`
	ByName   map[string]inner  `json:"by_name"`
	Raw      json.RawMessage   `json:"raw"`
	Any      any               `json:"any"`
	Shadowed string            `json:"shadowed"`
	Skipped  int               `json:"-"`
	Plain    int               // no tag: its Go name
	Arr      [2]map[string]int `json:"arr"`
	own      int
}

func TestDecodeAcceptsAnExactDocument(t *testing.T) {
	in := `{"version": 1, "items": [{"name": "a", "n": 2}], "ptr": {"name": "p"},
	  "by_name": {"x": {"name": "x"}, "X": {"name": "X"}}, "raw": {"free": [1, {"Free": 2}]},
	  "any": [{"k": null}, [], {}, "s\"}", -1.5e3, true, false], "shadowed": "outer", "promoted": "up", "Plain": 7,
	  "arr"	:	[ {"a":1} ,{ "a" : 2 } ] , "items" : [ ] , "items2": null}`
	var d doc
	require.ErrorContains(t, strictjson.Decode([]byte(in), &d), `key "items" appears twice`, "the repeated items")
	in = strings.Replace(in, `, "items" : [ ] , "items2": null`, ``, 1)
	d = doc{}
	require.NoError(t, strictjson.Decode([]byte(in), &d))
	assert.IsType(t, []any{}, d.Any)
	assert.Len(t, d.Any, 7)
	require.NotNil(t, d.Version)
	assert.Equal(t, 1, *d.Version)
	require.NotEmpty(t, d.Items)
	assert.Equal(t, inner{"a", 2}, d.Items[0])
	require.NotNil(t, d.Ptr)
	assert.Equal(t, "p", d.Ptr.Name)
	assert.Len(t, d.ByName, 2)
	assert.Equal(t, `{"free": [1, {"Free": 2}]}`, string(d.Raw))
	assert.Equal(t, "outer", d.Shadowed)
	assert.Equal(t, "up", d.Promoted)
	assert.Equal(t, 7, d.Plain)
	assert.Equal(t, 2, d.Arr[1]["a"])
	assert.Zero(t, d.own)
}

func TestDecodeRejects(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, "empty input: the file is empty, want a JSON object"},
		{" \n\t ", "the file is empty"},
		{"\xEF\xBB\xBF{}", "the file starts with a UTF-8 byte-order mark; save it without one"},
		{`null`, "the top level must be a JSON object, not null"},
		{`[{"version": 1}]`, "the top level must be a JSON object, not an array"},
		{`"x"`, "the top level must be a JSON object, not a string"},
		{`3`, "the top level must be a JSON object, not a number"},
		{`true`, "the top level must be a JSON object, not true"},
		{`{"Version": 1}`, `field "Version" does not match "version": keys are case-sensitive`},
		{`{"items": [{"name": "a"}, {"Name": "b"}]}`, `items[1]: field "Name" does not match "name": keys are case-sensitive`},
		{`{"version": 1, "version": 2}`, `key "version" appears twice`},
		{`{"items": [], "items": [{"name": "a"}]}`, `key "items" appears twice`},
		{`{"ptr": {"name": "a", "name": "b"}}`, `ptr: key "name" appears twice`},
		{`{"by_name": {"x": {"name": "x"}, "x": {}}}`, `by_name: key "x" appears twice`},
		{`{"by_name": {"x": {"nme": "x"}}}`, `by_name["x"]: unknown field "nme"`},
		{`{"raw": {"a": 1, "a": 2}}`, `raw: key "a" appears twice`},
		{`{"any": [{"a": [{"b": 1, "b": 1}]}]}`, `any[0].a[0]: key "b" appears twice`},
		{`{"arr": [{}, {"a": 1, "a": 1}]}`, `arr[1]: key "a" appears twice`},
		{`{"extra": 1}`, `unknown field "extra"`},
		{`{"Skipped": 1}`, `unknown field "Skipped"`},
		{`{"own": 1}`, `unknown field "own"`},
		{`{"plain": 1}`, `field "plain" does not match "Plain": keys are case-sensitive`},
		{`{"version": 1} {}`, "trailing data after the JSON object"},
		{`{"version": 1} x`, "trailing data after the JSON object"},
		{`{"version": 1,`, "truncated JSON: the object is not closed"},
		{`{"items": [`, "truncated JSON: the object is not closed"},
		{"{\n\"version\": x}", "malformed JSON at line 2, column 12: invalid character 'x'"},
		{`{"version": 1 "items": []}`, "malformed JSON at line 1, column 15"},
		{`{"version": "1"}`, "version: want an integer, not a JSON string"},
		{`{"ptr": {"name": "a", "na\u006de": "b"}}`, `ptr: key "name" appears twice`},
		{`{"raw": {"\u00e9": 1, "é": 2}}`, `raw: key "é" appears twice`},
		{`{"raw": {"a b": {"c": 1, "c": 2}}}`, `raw["a b"]: key "c" appears twice`},
		{`{"by_name": {"k": {"name": "x"}}, "items": [{"name": "}\"{"}, {"name": "b", "name": "c"}]}`, `items[1]: key "name" appears twice`},
		{`{"items": [{"n": 1.5}]}`, "items.n: want an integer, not a JSON number"},
	} {
		var d doc
		assert.ErrorContains(t, strictjson.Decode([]byte(c.in), &d), c.want, "%q", c.in)
	}
}

// TestDecodeRejectsWhatEncodingJSONAccepts: each input decodes without
// error under encoding/json, which is why the walk exists.
func TestDecodeRejectsWhatEncodingJSONAccepts(t *testing.T) {
	for _, in := range []string{`{"Version": 1}`, `{"items": [], "items": [{"name": "a"}]}`, `null`} {
		var lax doc
		require.NoError(t, json.Unmarshal([]byte(in), &lax), "%s: encoding/json rejects it too", in)
		var d doc
		assert.Error(t, strictjson.Decode([]byte(in), &d), "%s: accepted", in)
	}
}

func TestValidate(t *testing.T) {
	require.NoError(t, strictjson.Validate([]byte(`{"Any": {"Case": [1, {"x": null}]}, "b": []}`)))
	for in, want := range map[string]string{
		`{"a": {"b": 1, "b": 2}}`: `a: key "b" appears twice`,
		`[]`:                      "not an array",
		`{}{}`:                    "trailing data",
		"\xEF\xBB\xBF{}":          "byte-order mark",
	} {
		assert.ErrorContains(t, strictjson.Validate([]byte(in)), want, "%q", in)
	}
}

func TestDecodeNeedsAPointer(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "non-nil pointer") {
			t.Errorf("recovered %v", r)
		}
	}()
	_ = strictjson.Decode([]byte(`{}`), doc{})
}

// FuzzDecode: Decode never panics, and what it accepts encoding/json
// accepts too, with the same value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"version": 1, "items": [{"name": "a"}]}`, `{"raw": {"a": [1, "\u00e9", {"b": null}]}}`,
		`{"by_name": {"k\"": {"name": "x"}}}`, `{"ptr": null, "any": {"x": [[]]}}`, `{"n": 1} x`, "\xEF\xBB\xBF{}", `[`, `{"a`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d doc
		if strictjson.Decode(data, &d) != nil {
			return
		}
		var lax doc
		if err := json.Unmarshal(data, &lax); err != nil {
			t.Fatalf("accepted what encoding/json rejects: %v", err)
		}
		a, _ := json.Marshal(d)
		b, _ := json.Marshal(lax)
		if string(a) != string(b) {
			t.Fatalf("decoded %s, encoding/json %s", a, b)
		}
	})
}
