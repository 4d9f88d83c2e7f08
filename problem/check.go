package problem

import (
	"errors"
	"fmt"
)

// Check reports every way p misuses the contract that Write would repair
// silently for the client: a malformed or reserved extension name (the
// member is left out), a code the writer's registry does not know (sent as
// internal, without its extensions and field errors), a status or title
// the code overrules, a status that is no error status (400-599), an
// action, cause or outcome outside its closed set. Write sends the
// repaired problem and logs its record at error level naming each misuse
// (attribute build_error); Check is the same finding as an error, for a
// test or a startup check of a service's sentinel problems. It returns nil
// for a problem Write sends as it is.
func (wr *Writer) Check(p *Problem) error {
	if p == nil {
		return errors.New("problem: nil *Problem; sent as internal")
	}
	res, _ := wr.usable().resolve(nil, p, nil)
	return res.buildErr
}

// misuse lists what the writer changed in p, as resolved into res, because
// p broke a rule rather than because the contract's retry rules decided;
// nil when nothing was.
func misuse(p, res *Problem) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf("problem: "+format, args...)) }
	if p.code != "" && res.code != p.code {
		add("code %q is not registered in the writer's registry; sent as %s without its extensions and field errors", p.code, res.code)
		return errors.Join(errs...)
	}
	if p.status != 0 && p.status != res.status {
		if p.status < 400 || p.status > 599 {
			add("status %d is not an error status (400-599); sent as %d", p.status, res.status)
		} else {
			add("status %d is not the status of code %s; sent as %d (a code's type documents one status)", p.status, res.code, res.status)
		}
	}
	if p.title != "" && p.title != res.title {
		add("title %q is not the title of code %s; sent as %q", p.title, res.code, res.title)
	}
	if p.action != "" && !p.action.valid() {
		add("action %q is not one of the closed set; sent as %s", p.action, res.action)
	}
	if p.cause != "" && !p.cause.valid() {
		add("cause %q is not one of the closed set; sent as %s", p.cause, res.cause)
	}
	if p.outcome != "" && !p.outcome.valid() {
		add("outcome %q is not one of the closed set; sent as %s", p.outcome, res.outcome)
	}
	return errors.Join(errs...)
}
