package sanitize

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A struct's field and a map's key name their value as an attribute's key
// does, and the log tier reading a composite's rendering sees only
// "Password:correct horse battery staple": it redacts the first word and
// leaves the rest. fieldSecrets finds, before the rendering is read, every
// value held under a name that names a credential, so that its whole
// rendering is replaced, whatever it holds.

// fieldWalkMax bounds the values fieldSecrets visits. Each value takes at
// least a byte of the rendering (a separator, a name), and the tier keeps
// MaxLogLen bytes of it, so no value it shows is left unvisited.
const fieldWalkMax = MaxLogLen

// fieldSecret is one credential as the two renderings show it: "name:value"
// in %+v (text) and `"name":value` in encoding/json (js, empty when the
// field does not reach the JSON).
type fieldSecret struct {
	textName, text string
	jsName, js     string
}

type fieldWalk struct {
	seen    map[uintptr]bool
	visits  int
	secrets []fieldSecret
}

// fieldSecrets returns the credentials x holds under credential names.
func fieldSecrets(x any) []fieldSecret {
	w := fieldWalk{}
	w.value(reflect.ValueOf(x), 0)
	return w.secrets
}

func (w *fieldWalk) value(v reflect.Value, depth int) {
	w.visits++
	if !v.IsValid() || w.visits > fieldWalkMax || depth > 32 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Pointer {
			// A cycle is rendered by neither handler past its first turn.
			if w.seen[v.Pointer()] {
				return
			}
			if w.seen == nil {
				w.seen = map[uintptr]bool{}
			}
			w.seen[v.Pointer()] = true
		}
		w.value(v.Elem(), depth+1)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			f := t.Field(i)
			js := f.Name
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == "-" || !f.IsExported() {
				js = ""
			} else if tag != "" {
				js = tag
			}
			w.member(f.Name, js, v.Field(i), depth)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if k := iter.Key(); k.Kind() == reflect.String {
				w.member(k.String(), k.String(), iter.Value(), depth)
			} else {
				w.value(iter.Value(), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := 0; i < v.Len() && w.visits <= fieldWalkMax; i++ {
			w.value(v.Index(i), depth+1)
		}
	}
}

// member records the value under name (and jsName in JSON) when it is a
// credential by its name, and walks into it otherwise.
func (w *fieldWalk) member(name, jsName string, v reflect.Value, depth int) {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !keyMayNameCredential(name) && (jsName == "" || !keyMayNameCredential(jsName)) {
		w.value(v, depth+1)
		return
	}
	text, ok := leafText(v)
	if !ok && v.IsValid() && v.CanInterface() {
		// Anything else under a credential's name is read with the name
		// as %+v writes it, as an attribute's value is (credentialValue).
		text, ok = strings.TrimPrefix(fmt.Sprintf("%+v", v.Interface()), "&"), true
	}
	if !ok || text == "" || !(credentialText(name, text) || jsName != "" && credentialText(jsName, text)) {
		w.value(v, depth+1)
		return
	}
	s := fieldSecret{textName: name, text: text}
	if jsName != "" && v.CanInterface() {
		if b, err := json.Marshal(v.Interface()); err == nil {
			s.jsName, s.js = jsName, string(b)
		}
	}
	w.secrets = append(w.secrets, s)
}

// leafText is the %+v of a value the tier reads as one value: text, bytes
// or a list of text.
func leafText(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Slice, reflect.Array:
		switch v.Type().Elem().Kind() {
		case reflect.Uint8:
			if v.Kind() == reflect.Slice {
				return fmt.Sprint(v.Bytes()), true
			}
		case reflect.String:
			parts := make([]string, v.Len())
			for i := range parts {
				parts[i] = v.Index(i).String()
			}
			return "[" + strings.Join(parts, " ") + "]", true
		}
	}
	return "", false
}

// redactText replaces every credential of secrets in a %+v rendering.
func redactText(s string, secrets []fieldSecret) string {
	for _, f := range secrets {
		s = strings.ReplaceAll(s, f.textName+":"+f.text, f.textName+":"+Redacted)
	}
	return s
}

// redactJSON replaces every credential of secrets in a JSON rendering.
func redactJSON(s string, secrets []fieldSecret) string {
	for _, f := range secrets {
		if f.js != "" {
			name, _ := json.Marshal(f.jsName)
			s = strings.ReplaceAll(s, string(name)+":"+f.js, string(name)+`:"`+Redacted+`"`)
		}
	}
	return s
}
