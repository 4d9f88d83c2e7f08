package sanitize

import "strings"

// An INSERT names its columns once and gives their values in the same
// order: INSERT INTO users (name, password) VALUES ('bob', '...'). The
// log tier keeps the statement, so a literal whose column names a secret
// is redacted as the key-value rule redacts "password = '...'".

const (
	// maxInsertColumns bounds the column list read back from VALUES, and
	// maxInsertRow how far a row is read on.
	maxInsertColumns = 256
	maxInsertRow     = 1024
)

// insertRowAt reports whether the parenthesis at s[i] opens the rows of
// an INSERT: it follows the word VALUES, which follows the column list's
// closing parenthesis.
func insertRowAt(s string, i int) bool {
	return insertColumnsBefore(s, i) != ""
}

// insertColumnsBefore returns the column list of the INSERT whose rows
// open at s[i] ("name, password" for "(name, password) VALUES ("), or ""
// when s[i] opens none.
func insertColumnsBefore(s string, i int) string {
	p := plainSpacesBefore(s, i)
	if !wordSuffixFold(s[:p], "values") {
		return ""
	}
	p = plainSpacesBefore(s, p-len("values"))
	if p == 0 || s[p-1] != ')' {
		return ""
	}
	end := p - 1
	lo := max(0, end-maxInsertColumns)
	open := strings.LastIndexByte(s[lo:end], '(')
	spend(end - lo)
	if open < 0 {
		return ""
	}
	return s[lo+open+1 : end]
}

// secretColumns returns a mask of the columns, of the first 64, whose
// names name a secret.
func secretColumns(columns string) uint64 {
	var mask uint64
	for k := 0; k < 64 && columns != ""; k++ {
		name := columns
		if c := strings.IndexByte(columns, ','); c >= 0 {
			name, columns = columns[:c], columns[c+1:]
		} else {
			columns = ""
		}
		name = strings.Trim(name, " \t\n`\"[]")
		if _, _, ok := secretKeyEnding(name); ok && allKeyName(name) {
			mask |= 1 << k
		}
	}
	return mask
}

// redactInsertedSecrets replaces the literals of secret columns in the
// rows of every INSERT. A row is read once, forward, up to its closing
// parenthesis or a byte a row holds only inside its literals; the next
// INSERT is looked for after it.
func redactInsertedSecrets(s string) string {
	e := edit{s: s}
	for i := indexFrom(s, 0, '('); i < len(s); {
		columns := insertColumnsBefore(s, i)
		if columns == "" {
			i = indexFrom(s, i+1, '(')
			continue
		}
		mask := secretColumns(columns)
		end := redactRow(&e, s, i, mask)
		for end < len(s) && s[end] == ')' {
			next := nextRow(s, end+1)
			if next < 0 {
				break
			}
			end = redactRow(&e, s, next, mask)
		}
		i = indexFrom(s, min(end+1, len(s)), '(')
	}
	return e.result()
}

// nextRow returns where the row after the one closed before s[j] opens
// ("), ("), or -1 when none follows.
func nextRow(s string, j int) int {
	j = afterSpaces(s, j)
	if j >= len(s) || s[j] != ',' {
		return -1
	}
	j = afterSpaces(s, j+1)
	if j >= len(s) || s[j] != '(' {
		return -1
	}
	return j
}

func afterSpaces(s string, j int) int {
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j
}

// redactRow reads the row that opens at s[open] and redacts the literals
// of the columns in mask; it returns where the row's reading stopped.
func redactRow(e *edit, s string, open int, mask uint64) int {
	col, depth := 0, 0
	j := open + 1
	for ; j < len(s) && j-open < maxInsertRow; j++ {
		switch c := s[j]; c {
		case '\'', '"':
			ve := sqlStringEnd(s, j)
			if depth == 0 && col < 64 && mask&(1<<col) != 0 && ve > j+1 && j >= e.last && !placeholderAt(s, j+1, ve) {
				e.replace(j+1, ve, Redacted)
			}
			j = ve
		case ',':
			if depth == 0 {
				col++
			}
		case '(':
			depth++
		case ')':
			if depth == 0 {
				spend(j - open)
				return j
			}
			depth--
		case '{', '}', '[', ']', '=', ';', '\n', '<', '>':
			spend(j - open)
			return j
		}
	}
	spend(j - open)
	return j
}
