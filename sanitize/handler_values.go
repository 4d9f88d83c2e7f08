package sanitize

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
)

// An attribute's key says what its value is: slog.String("password", pw)
// holds a password however plain pw looks, and the log tier reading pw
// alone sees a word. The handler therefore reads a key and its value
// together, as the tier reads "key=value" in a text, so that an attribute
// is redacted exactly when the same pair written in a message would be.

// keyProbe is a value the tier redacts after any key that names a
// credential, even one that only names it with a credential-shaped value
// ("key", "auth"): the test of whether a key may hide a value.
const keyProbe = "Zx9q2Lm4Kp7wQ3"

// keyVerdicts remembers, per attribute key, whether it may name a
// credential: a program logs under a few hundred keys, each asked once. A
// key has two slots to choose from, so that two keys of one record almost
// never evict each other (an eviction costs the question again, and a
// clean record its allocations).
var keyVerdicts [4096]atomic.Pointer[keyVerdict]

type keyVerdict struct {
	key        string
	credential bool
}

// keyMayNameCredential reports whether the log tier reads key as the name
// of a credential in "key=<credential-shaped value>".
func keyMayNameCredential(key string) bool {
	// FNV-1a, inline: a key is a few bytes, and maphash's call cost more
	// than the bytes. A key chosen to collide costs only the question.
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	slots := [2]*atomic.Pointer[keyVerdict]{&keyVerdicts[h%uint64(len(keyVerdicts))], &keyVerdicts[(h>>32)%uint64(len(keyVerdicts))]}
	for _, slot := range slots {
		if v := slot.Load(); v != nil && v.key == key {
			return v.credential
		}
	}
	credential := redactsValueAfter(key, keyProbe)
	v := &keyVerdict{key: strings.Clone(key), credential: credential}
	switch {
	case slots[0].Load() == nil:
		slots[0].Store(v)
	case slots[1].Load() == nil:
		slots[1].Store(v)
	default:
		slots[h&1].Store(v)
	}
	return credential
}

// redactsValueAfter reports whether the log tier, reading key=text, redacts
// the start of text: the whole value then goes, since a credential's
// attribute holds nothing else worth keeping.
func redactsValueAfter(key, text string) bool {
	if text == "" || strings.HasPrefix(text, Redacted) {
		return false
	}
	rest, ok := strings.CutPrefix(Log(key+"="+text), key+"=")
	return ok && strings.HasPrefix(rest, Redacted)
}

// credentialValue reports whether the attribute key=v holds a credential
// by its key: text, a number, a bool, bytes, or a map, struct or slice as
// %+v writes it, that the tier redacts after that key, or LogAttr's text
// moved under such a key. Groups are read member by member instead.
func credentialValue(key string, v slog.Value) bool {
	switch v.Kind() {
	case slog.KindGroup, slog.KindTime, slog.KindDuration:
		return false
	case slog.KindLogValuer:
		m, ok := v.Any().(*logged)
		return ok && credentialText(key, m.text)
	case slog.KindAny:
		if text, ok := byteText(v.Any()); ok {
			return credentialText(key, text)
		}
		switch v.Any().(type) {
		case slog.Level, nil:
			return false
		}
		// The key first: the rendering is made only under a credential's
		// key. A pointer's '&' would hide the value from the tier's rules.
		return keyMayNameCredential(key) &&
			redactsValueAfter(key, strings.TrimPrefix(fmt.Sprintf("%+v", v.Any()), "&"))
	}
	// The key first: a number's text is made only under a credential's key.
	return keyMayNameCredential(key) && redactsValueAfter(key, v.String())
}

// credentialText reports whether text, an attribute's value under key, is
// a credential by its key.
func credentialText(key, text string) bool {
	return keyMayNameCredential(key) && redactsValueAfter(key, text)
}

// byteText is the text of a byte slice of any type, []byte or one of its
// own (json.RawMessage): slog's text handler writes its bytes as text and
// its JSON handler their base64, neither of which %+v shows.
func byteText(x any) (string, bool) {
	if b, ok := x.([]byte); ok {
		return string(b), true
	}
	if v := reflect.ValueOf(x); v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
		return string(v.Bytes()), true
	}
	return "", false
}

// attrText is the log tier's text of an attribute's string value.
func attrText(key, value string) string {
	if credentialText(key, value) {
		return Redacted
	}
	return Log(value)
}

// cleanComposite passes a map, struct, slice, pointer or bytes through the
// log tier as the next handler would write it: slog's text handler prints
// it with %+v (unexported fields and those json ignores included) and its
// JSON handler marshals it (a MarshalJSON of its own included), so both
// renderings are read. A value the tier leaves alone is handed on as it
// is; one it changes becomes its redacted rendering: raw JSON where the
// redaction kept it valid, text otherwise. A member under a credential's
// name is replaced whole first (see fieldSecrets).
func cleanComposite(v slog.Value) (out slog.Value, changed bool) {
	x := v.Any()
	if x == nil {
		return v, false
	}
	defer func() {
		if r := recover(); r != nil {
			out, changed = slog.StringValue(Log(fmt.Sprintf("!PANIC: %v", r))), true
		}
	}()
	if s, ok := byteText(x); ok {
		c := Log(s)
		switch {
		case c == s:
			return v, false
		case json.Valid([]byte(c)) && reflect.TypeOf(x) == reflect.TypeFor[json.RawMessage]():
			return slog.AnyValue(json.RawMessage(c)), true
		}
		return slog.StringValue(c), true
	}
	secrets := fieldSecrets(x)
	text := fmt.Sprintf("%+v", x)
	if c := Log(redactText(text, secrets)); c != text {
		return slog.StringValue(c), true
	}
	data, err := json.Marshal(x)
	if err != nil {
		return v, false
	}
	js := string(data)
	c := Log(redactJSON(js, secrets))
	if c == js {
		return v, false
	}
	if json.Valid([]byte(c)) {
		return slog.AnyValue(json.RawMessage(c)), true
	}
	return slog.StringValue(c), true
}

// holderKeys name nothing of their own: a member so named holds what its
// group's name names (slog.Group("password", "value", pw), or a logger's
// WithGroup("api_key") and then "value").
var holderKeys = []string{"value", "val", "v", "data", "raw", "text", "plain", "content", "str", "string"}

// heldSecret reports whether a, a member of the group named group, holds
// the credential the group's name names.
func heldSecret(group string, a slog.Attr) bool {
	if a.Value.Kind() == slog.KindGroup || !slices.ContainsFunc(holderKeys, func(k string) bool { return strings.EqualFold(k, a.Key) }) {
		return false
	}
	return keyMayNameCredential(group)
}

// redactHolders redacts the members of the group v, named key, that hold
// what key names, and reports whether it redacted any.
func redactHolders(key string, v slog.Value) (slog.Value, bool) {
	attrs := v.Group()
	var out []slog.Attr
	for i, m := range attrs {
		if !heldSecret(key, m) {
			continue
		}
		if out == nil {
			out = slices.Clone(attrs)
		}
		out[i] = slog.String(m.Key, Redacted)
	}
	if out == nil {
		return v, false
	}
	return slog.GroupValue(out...), true
}
