package sanitize

// The grammar of each statement after its verb, read by a sqlCursor: in
// any case (a statement at a lead) each must show the structure prose
// lacks; in capitals the keyword after the verb is enough.

// statement reads what follows the verb v.
func (c *sqlCursor) statement(v string) bool {
	switch lowerWord(v) {
	case "select":
		return c.fold && c.selectRest()
	case "insert", "upsert", "replace":
		return c.insertRest()
	case "update":
		return c.fold && c.updateRest()
	case "delete":
		return c.deleteRest()
	case "merge":
		return c.mergeRest()
	case "with":
		return c.withRest()
	case "create", "alter", "drop":
		return c.objectRest(lowerWord(v) == "drop")
	case "grant", "revoke":
		return c.grantRest(lowerWord(v) == "revoke")
	case "truncate":
		return c.truncateRest()
	case "copy":
		return c.copyRest()
	case "explain":
		return c.explainRest()
	case "call":
		return c.callRest()
	case "set":
		return c.keyword("role") && (!c.fold || c.roleEnd())
	}
	return false
}

// clause reports whether a clause of a query follows a table, by its
// keyword and what must come after it: prose goes on "from the cache
// where possible", "from stock for free".
func (c *sqlCursor) clause() bool {
	switch {
	case c.keyword("where", "having"):
		return c.condition()
	case c.keyword("order", "group"):
		return c.keyword("by")
	case c.keyword("limit", "offset"):
		b := c.peek()
		return isDigit(b) || b == '$' || b == '?'
	case c.keyword("inner", "left", "right", "full", "cross", "natural"):
		c.keyword("outer")
		return c.keyword("join")
	case c.keyword("join", "using", "returning", "window"):
		ok, _ := c.nameNot(articles)
		return ok || c.peek() == '*'
	case c.keyword("union", "intersect", "except"):
		c.keyword("all")
		return c.nextIs("select")
	case c.keyword("for"):
		return c.nextIs("update", "share")
	}
	return false
}

// condition reports whether a condition follows WHERE: a comparison, a
// test (IS, IN, LIKE, BETWEEN), a parenthesis, NOT or EXISTS, or a
// column that looks like code alone ("where is_active").
func (c *sqlCursor) condition() bool {
	if c.peek() == '(' || c.nextIs("not", "exists") {
		return true
	}
	ok, strong := c.nameNot(articles)
	if !ok {
		return false
	}
	switch c.peek() {
	case '=', '<', '>', '!':
		return true
	}
	return c.nextIs("is", "in", "like", "ilike", "between", "and", "or") || strong && (c.end() || c.closes())
}

// selectRest reads "<columns> from <table>", then what may follow a
// table: a clause's keyword, punctuation that ends a statement or its
// quote, or the end of the text.
func (c *sqlCursor) selectRest() bool {
	c.keyword("distinct", "all")
	ok, code := c.columns()
	if !ok {
		return false
	}
	if !c.keyword("from") {
		// "select 1", "select now()": a list of code alone.
		return code && (c.end() || c.closes())
	}
	if c.punct('(') {
		return c.nextIs("select")
	}
	if ok, _ := c.name(); !ok {
		return false
	}
	if code || c.end() || c.closes() || c.clause() {
		return true
	}
	// An alias, which a clause must follow.
	c.keyword("as")
	if ok, _ := c.name(); !ok {
		return false
	}
	return c.peek() == ';' || c.peek() == ')' || c.peek() == ',' || c.clause()
}

// closes reports whether the next byte ends a statement or the quote or
// the clause of the message around it.
func (c *sqlCursor) closes() bool {
	switch c.peek() {
	case ';', ')', ',', '"', '\'', '`', ':', '\\':
		return true
	}
	return false
}

// columns reads a select's list: "*", names, calls, literals,
// placeholders, each with an optional "as" alias, joined by commas. code
// says the list holds what prose does not: a '*', a comma, a qualified or
// coded name, a call, a literal, a number or a placeholder.
func (c *sqlCursor) columns() (ok, code bool) {
	for {
		ok, strong := c.column()
		if !ok {
			return false, false
		}
		code = code || strong
		if c.keyword("as") {
			if ok, _ := c.name(); !ok {
				return false, false
			}
		}
		if !c.punct(',') {
			return true, code
		}
		code = true
	}
}

func (c *sqlCursor) column() (ok, code bool) {
	switch b := c.peek(); {
	case b == '*' || b == '?':
		c.punct(b)
		return true, true
	case b == '\'':
		return c.quoted(), true
	case b == '$' || isDigit(b):
		c.i++
		for c.i < len(c.s) && isDigit(c.s[c.i]) {
			c.i++
		}
		c.space()
		return true, true
	}
	ok, strong := c.nameNot(articles)
	if !ok {
		return false, false
	}
	if c.s[c.i-1] == '.' && c.punct('*') {
		return true, true
	}
	if c.peek() == '(' {
		return c.arguments(), true
	}
	return true, strong
}

// maxArgs bounds the tokens read between a call's parentheses.
const maxArgs = 32

// arguments reads a call's parenthesized arguments, one level deep:
// names, literals, numbers, '*' and commas.
func (c *sqlCursor) arguments() bool {
	c.punct('(')
	for n := 0; n < maxArgs; n++ {
		switch b := c.peek(); {
		case b == ')':
			c.punct(')')
			return true
		case b == ',' || b == '*':
			c.punct(b)
		case b == '\'':
			if !c.quoted() {
				return false
			}
		default:
			if c.nextIs("select") {
				return false
			}
			w := c.word()
			if w == "" {
				return false
			}
			c.i += len(w)
			c.space()
		}
	}
	return false
}

// insertRest reads "[ignore] into <table>" and then a column list, VALUES,
// a select or SET.
func (c *sqlCursor) insertRest() bool {
	c.keyword("ignore")
	if c.keyword("or") && !c.keyword("replace", "ignore") {
		return false
	}
	if !c.keyword("into") {
		return false
	}
	if ok, _ := c.name(); !ok {
		return false
	}
	return !c.fold || c.peek() == '(' || c.nextIs("values", "value", "select", "default", "set", "overriding")
}

// updateRest reads "<table> [alias] set <column> =".
func (c *sqlCursor) updateRest() bool {
	c.keyword("only")
	if ok, _ := c.name(); !ok {
		return false
	}
	if !c.keyword("set") {
		c.keyword("as")
		if ok, _ := c.name(); !ok || !c.keyword("set") {
			return false
		}
	}
	if ok, _ := c.name(); !ok {
		return false
	}
	return c.peek() == '='
}

// deleteRest reads "from <table>" and, in any case, a clause or the end
// of the statement after it.
func (c *sqlCursor) deleteRest() bool {
	if !c.keyword("from") {
		return false
	}
	ok, strong := c.name()
	if !ok || !c.fold {
		return ok
	}
	if c.peek() == ';' || c.clause() {
		return true
	}
	return strong && (c.end() || c.closes())
}

// mergeRest reads "into <table> [alias] using".
func (c *sqlCursor) mergeRest() bool {
	if !c.keyword("into") {
		return false
	}
	if ok, _ := c.name(); !ok {
		return false
	}
	if !c.fold {
		return true
	}
	if !c.nextIs("using") {
		c.keyword("as")
		c.name()
	}
	return c.keyword("using")
}

// withRest reads a common table expression: "[recursive] <name>
// [(<columns>)] as [not] [materialized] (".
func (c *sqlCursor) withRest() bool {
	c.keyword("recursive")
	if ok, _ := c.name(); !ok {
		return false
	}
	if c.peek() == '(' && !c.arguments() {
		return false
	}
	if !c.spacedKeyword("as") {
		return false
	}
	c.keyword("not")
	c.keyword("materialized")
	return c.peek() == '('
}

// sqlObjects are what CREATE, ALTER and DROP act on.
var sqlObjects = []string{"table", "index", "view", "user", "role", "database", "schema", "sequence",
	"trigger", "function", "procedure", "extension", "type", "policy", "domain", "tablespace", "login"}

// objectFollow are the words that may follow the name of an object being
// created or altered.
var objectFollow = []string{"with", "as", "on", "identified", "password", "owner", "add", "drop", "alter",
	"rename", "set", "from", "to", "returns", "language", "using", "for", "before", "after", "login",
	"nologin", "superuser", "authorization", "default", "in", "increment", "start", "if", "cascade",
	"restrict", "encrypted", "valid", "connection", "createdb", "createrole", "inherit", "reset"}

// objectRest reads "[or replace] [modifiers] <object> [if [not] exists]
// <name>" and, in any case, what may follow the name. drop says the verb
// was DROP, after which the name may end the statement.
func (c *sqlCursor) objectRest(drop bool) bool {
	if c.keyword("or") && !c.keyword("replace") {
		return false
	}
	for n := 0; n < 3; n++ {
		if !c.keyword("temporary", "temp", "unique", "materialized", "global", "local", "unlogged", "recursive") {
			break
		}
	}
	person := c.nextIs("user", "role", "login", "type")
	if !c.keyword(sqlObjects...) {
		return false
	}
	if !c.fold {
		return true
	}
	// PostgreSQL names an index itself: "create index on orders (email)".
	if c.keyword("on") {
		ok, _ := c.name()
		return ok && c.peek() == '('
	}
	if c.keyword("if") && (!c.keyword("not") && !c.nextIs("exists") || !c.keyword("exists")) {
		return false
	}
	ok, strong := c.name()
	switch {
	case !ok:
		return false
	case strong, c.peek() == '(', c.peek() == ';', c.nextIs(objectFollow...):
		return true
	}
	// Only a person's account is created in prose ("create user alice").
	return drop && (c.end() || c.closes()) || !person && c.end()
}

// sqlPrivileges are the privileges GRANT and REVOKE name.
var sqlPrivileges = []string{"all", "select", "insert", "update", "delete", "usage", "execute", "references",
	"trigger", "create", "connect", "temporary", "temp", "truncate", "maintain", "alter", "drop", "index",
	"privileges", "reload", "process", "file", "super", "replication", "event", "show"}

// maxPrivileges bounds the words read before the ON or TO of a GRANT.
const maxPrivileges = 12

// grantRest reads "<privileges> on <object> to|from", or, in capitals,
// any words before ON, TO or FROM; a role granted by name must look like
// code ("grant app_reader to app").
func (c *sqlCursor) grantRest(revoke bool) bool {
	target := "to"
	if revoke {
		target = "from"
	}
	if !c.fold {
		for n := 0; n < maxPrivileges && !c.end(); n++ {
			if c.spacedKeyword("on") || c.spacedKeyword(target) {
				return true
			}
			if w := c.word(); w != "" {
				c.i += len(w)
				c.space()
			} else if !c.punct(',') && !c.punct('(') && !c.punct(')') {
				return false
			}
		}
		return false
	}
	privileges := 0
	for privileges < maxPrivileges && c.keyword(sqlPrivileges...) {
		privileges++
		c.punct(',')
	}
	if privileges > 0 && c.keyword("on") {
		c.keyword("table", "schema", "database", "sequence", "function")
		ok, _ := c.name()
		return ok && c.keyword(target)
	}
	if privileges > 0 {
		return false
	}
	ok, strong := c.name()
	if !ok || !c.keyword(target) {
		return false
	}
	ok, code := c.name()
	return ok && (strong || code)
}

// truncateRest reads "[table] <name>": in any case, the name must look
// like code unless TABLE says what it is.
func (c *sqlCursor) truncateRest() bool {
	table := c.keyword("table")
	ok, strong := c.name()
	return ok && (!c.fold || table || strong || c.peek() == ';' || c.nextIs("cascade", "restart"))
}

// copyRest reads "<table> [(<columns>)] from|to", or "(<query>) to".
func (c *sqlCursor) copyRest() bool {
	if c.punct('(') {
		return c.nextIs("select")
	}
	ok, _ := c.name()
	if !ok {
		return false
	}
	if c.peek() == '(' && !c.arguments() {
		return false
	}
	if !c.keyword("from", "to") {
		return false
	}
	return !c.fold || c.nextIs("stdin", "stdout", "program") || c.peek() == '\''
}

// explainRest reads "[analyze] [verbose] [(<options>)]" and the statement
// explained, which may not be another EXPLAIN.
func (c *sqlCursor) explainRest() bool {
	c.keyword("analyze", "analyse")
	c.keyword("verbose")
	if c.peek() == '(' && !c.arguments() {
		return false
	}
	v := c.word()
	if v == "" || c.isKeyword(v, "explain") {
		return false
	}
	for _, verb := range sqlVerbs[v[0]|0x20] {
		if c.isKeyword(v, verb) && sqlSpaceAt(c.s, c.i+len(v)) > 0 {
			c.i += len(v)
			c.space()
			return c.statement(v)
		}
	}
	return false
}

// callRest reads "<procedure>(": in any case with no space before the
// parenthesis.
func (c *sqlCursor) callRest() bool {
	if ok, _ := c.name(); !ok || c.peek() != '(' {
		return false
	}
	return !c.fold || sqlSpaceAt(c.s, c.i-1) == 0
}

// roleEnd reports whether "set role <name>" ends where a lower-case SET
// ROLE is read: the name and the end of the statement.
func (c *sqlCursor) roleEnd() bool {
	ok, _ := c.name()
	return ok && (c.end() || c.closes())
}
