package bind

import (
	"reflect"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
)

// customMessage is the WithMessage sentence of fe's tag or of the tag an
// alias stands for, the alias first.
func customMessage(fe validator.FieldError, messages map[string]func(validator.FieldError) string) (string, bool) {
	for _, tag := range [...]string{fe.Tag(), fe.ActualTag()} {
		if fn, ok := messages[tag]; ok {
			return fn(fe), true
		}
	}
	return "", false
}

// genericMessage is used for any tag without a sentence: safe, if vague,
// where validator's own text would name Go structs and fields.
const genericMessage = "is not valid"

func message(fe validator.FieldError, root reflect.Value, messages map[string]func(validator.FieldError) string) string {
	if m, ok := customMessage(fe, messages); ok && m != "" {
		return m
	}
	tag, param := fe.ActualTag(), fe.Param()
	if strings.HasSuffix(tag, "field") {
		return crossFieldMessage(fe, root, tag)
	}
	if m, ok := fixed[tag]; ok {
		return m
	}
	if m, ok := boundMessage(fe, tag, param); ok {
		return m
	}
	if say, ok := withParam[tag]; ok {
		return say(param)
	}
	return genericMessage
}

// crossFieldMessage names the other field a cross-field tag compares
// with, by the name the client sent it under.
func crossFieldMessage(fe validator.FieldError, root reflect.Value, tag string) string {
	label, ok := fieldLabel(fe, root)
	if !ok {
		return genericMessage
	}
	if m, ok := crossField[tag]; ok {
		return m + " " + label
	}
	return genericMessage
}

// boundMessage is the sentence of a size or range tag; without a
// parameter on a time, the bound is now.
func boundMessage(fe validator.FieldError, tag, param string) (string, bool) {
	now := param == "" && isTime(fe)
	switch tag {
	case "min", "gte":
		if now {
			return "must not be in the past", true
		}
		return bound(fe, "at least", "at least", "at least"), true
	case "max", "lte":
		if now {
			return "must not be in the future", true
		}
		return bound(fe, "at most", "at most", "at most"), true
	case "gt":
		if now {
			return "must be in the future", true
		}
		return bound(fe, "longer than", "more than", "greater than"), true
	case "lt":
		if now {
			return "must be in the past", true
		}
		return bound(fe, "shorter than", "fewer than", "less than"), true
	case "len":
		return bound(fe, "exactly", "exactly", "exactly"), true
	}
	return "", false
}

// withParam holds the sentences of the tags that quote their parameter.
var withParam = map[string]func(param string) string{
	"eq":             func(p string) string { return "must be equal to " + p },
	"eq_ignore_case": func(p string) string { return "must be equal to " + p },
	"ne":             func(p string) string { return "must not be equal to " + p },
	"ne_ignore_case": func(p string) string { return "must not be equal to " + p },
	"oneof":          func(p string) string { return "must be one of: " + p },
	"oneofci":        func(p string) string { return "must be one of: " + p },
	"contains":       func(p string) string { return "must contain " + quote(p) },
	"containsany":    func(p string) string { return "must contain at least one of " + quote(p) },
	"excludes":       func(p string) string { return "must not contain " + quote(p) },
	"excludesall":    func(p string) string { return "must not contain any of " + quote(p) },
	"startswith":     func(p string) string { return "must start with " + quote(p) },
	"endswith":       func(p string) string { return "must end with " + quote(p) },
	"startsnotwith":  func(p string) string { return "must not start with " + quote(p) },
	"endsnotwith":    func(p string) string { return "must not end with " + quote(p) },
	"datetime":       func(p string) string { return "must be a date/time in the format " + p },
}

// requiredMessage is the sentence of the required family of tags, for a
// member the client left out.
const requiredMessage = "is required"

// fixed holds sentences that depend on nothing but the tag.
var fixed = map[string]string{
	"required":             requiredMessage,
	"required_if":          requiredMessage,
	"required_unless":      requiredMessage,
	"required_with":        requiredMessage,
	"required_with_all":    requiredMessage,
	"required_without":     requiredMessage,
	"required_without_all": requiredMessage,
	"excluded_if":          "must not be set",
	"excluded_unless":      "must not be set",
	"excluded_with":        "must not be set",
	"excluded_with_all":    "must not be set",
	"excluded_without":     "must not be set",
	"excluded_without_all": "must not be set",
	"isdefault":            "must not be set",
	"email":                "must be a valid email address",
	"url":                  "must be a valid URL",
	"http_url":             "must be a valid HTTP or HTTPS URL",
	"https_url":            "must be a valid HTTPS URL",
	"uri":                  "must be a valid URI",
	"uuid":                 "must be a valid UUID",
	"uuid3":                "must be a valid version 3 UUID",
	"uuid4":                "must be a valid version 4 UUID",
	"uuid5":                "must be a valid version 5 UUID",
	"uuid_rfc4122":         "must be a valid UUID",
	"ulid":                 "must be a valid ULID",
	"e164":                 "must be a phone number in E.164 format, such as +14155552671",
	"alpha":                "must contain only letters",
	"alphanum":             "must contain only letters and digits",
	"alphaunicode":         "must contain only letters",
	"alphanumunicode":      "must contain only letters and digits",
	"ascii":                "must contain only ASCII characters",
	"printascii":           "must contain only printable ASCII characters",
	"numeric":              "must be a numeric value",
	"number":               "must contain only digits",
	"hexadecimal":          "must be a hexadecimal value",
	"hexcolor":             "must be a hexadecimal color",
	"rgb":                  "must be an RGB color",
	"rgba":                 "must be an RGBA color",
	"lowercase":            "must be lowercase",
	"uppercase":            "must be uppercase",
	"boolean":              "must be a boolean value",
	"json":                 "must be valid JSON",
	"jwt":                  "must be a valid JSON Web Token",
	"base64":               "must be valid base64",
	"base64url":            "must be valid base64url",
	"ip":                   "must be a valid IP address",
	"ipv4":                 "must be a valid IPv4 address",
	"ipv6":                 "must be a valid IPv6 address",
	"ip_addr":              "must be a valid IP address",
	"cidr":                 "must be a valid CIDR notation",
	"cidrv4":               "must be a valid IPv4 CIDR notation",
	"cidrv6":               "must be a valid IPv6 CIDR notation",
	"mac":                  "must be a valid MAC address",
	"hostname":             "must be a valid hostname",
	"hostname_rfc1123":     "must be a valid hostname",
	"fqdn":                 "must be a fully qualified domain name",
	"latitude":             "must be a valid latitude",
	"longitude":            "must be a valid longitude",
	"iso3166_1_alpha2":     "must be a two-letter ISO 3166-1 country code",
	"iso3166_1_alpha3":     "must be a three-letter ISO 3166-1 country code",
	"iso4217":              "must be an ISO 4217 currency code",
	"bcp47_language_tag":   "must be a BCP 47 language tag",
	"timezone":             "must be a valid time zone",
	"semver":               "must be a semantic version",
	"unique":               "must not contain duplicates",
}

// crossField holds the openings of sentences that name another field.
var crossField = map[string]string{
	"eqfield":    "must be equal to",
	"eqcsfield":  "must be equal to",
	"nefield":    "must not be equal to",
	"necsfield":  "must not be equal to",
	"gtfield":    "must be greater than",
	"gtcsfield":  "must be greater than",
	"gtefield":   "must be at least",
	"gtecsfield": "must be at least",
	"ltfield":    "must be less than",
	"ltcsfield":  "must be less than",
	"ltefield":   "must be at most",
	"ltecsfield": "must be at most",
}

// bound phrases a size or value limit by what is limited: characters of a
// string (validator counts runes), items of a collection, or the number
// itself.
func bound(fe validator.FieldError, text, items, number string) string {
	param := fe.Param()
	switch fe.Kind() {
	case reflect.String:
		return "must be " + text + " " + param + plural(param, " character", " characters")
	case reflect.Slice, reflect.Array, reflect.Map:
		return "must contain " + items + " " + param + plural(param, " item", " items")
	}
	return "must be " + number + " " + param
}

func plural(n, one, many string) string {
	if n == "1" {
		return one
	}
	return many
}

func quote(s string) string { return `"` + s + `"` }

var timeType = reflect.TypeFor[time.Time]()

func isTime(fe validator.FieldError) bool {
	t := fe.Type()
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t == timeType
}
