package problemdocs

import "html/template"

// The pages stand alone: no scripts, no external styles or fonts, so they
// render the same behind any firewall. Every value goes through
// html/template's escaping.
const style = `<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font-family:ui-monospace,monospace}pre{background:#f4f4f4;padding:1rem;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.35rem;text-align:left;vertical-align:top}
dt{font-weight:600}dd{margin:0 0 .6rem 0}
</style>`

// legacyParagraph announces the Writer's legacy window on every page: the
// members, and the date after which they are gone.
const legacyParagraph = `{{with .Legacy}}<p id="legacy"><strong>Legacy members.</strong> {{if .Active}}Every problem also carries <code>error</code> (the code) and <code>message</code> (the detail, or the title), for clients written before this format{{if .UntilDate}}, until <time id="legacy-until" datetime="{{.Until}}">{{.UntilDate}}</time>; after that date they are no longer sent{{else}}, with no end date announced yet{{end}}. Read <code>code</code> and <code>detail</code> instead.{{else}}The legacy members <code>error</code> and <code>message</code> were sent until <time id="legacy-until" datetime="{{.Until}}">{{.UntilDate}}</time> and are no longer sent.{{end}}</p>{{end}}`

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}} ({{.Code}})</title>` + style + `</head>
<body>
<p><a href="./">All problem types</a></p>
<h1 id="title">{{.Title}}</h1>
<p><code id="code">{{.Code}}</code> · HTTP <span id="status">{{.Status}}</span></p>
{{with .Deprecated}}<p id="deprecated"><strong>Deprecated</strong> since {{.Since}}.{{if .Successor}} Use {{if .SuccessorPage}}<a href="{{.Successor}}"><code>{{.Successor}}</code></a>{{else}}<code>{{.Successor}}</code>{{end}} instead.{{end}} Clients should accept it until it is retired.</p>{{end}}
<p>{{.Meaning}}</p>
` + legacyParagraph + `
<dl>
<dt>Type URI</dt><dd><code>{{.Type}}</code></dd>
<dt>action</dt><dd><code id="action">{{.Action}}</code></dd>
<dt>cause</dt><dd><code id="cause">{{.Cause}}</code></dd>
<dt>retryable</dt><dd><code id="retryable">{{.Retryable}}</code></dd>
{{with .Outcome}}<dt>outcome</dt><dd><code id="outcome">{{.}}</code>, on every occurrence</dd>{{end}}
<dt>detail</dt><dd>{{if .ShowsDetail}}Says what went wrong in this occurrence.{{else}}Always the generic text below; the specifics are in the server log under the correlation ID.{{end}}{{if .DefaultDetail}} Default: “{{.DefaultDetail}}”{{end}}</dd>
</dl>
<h2>How a client should react</h2>
<p id="reaction">{{.Reaction}}</p>
<p>Branch on <code>code</code>, <code>action</code> and <code>retryable</code>, never on <code>title</code> or <code>detail</code>.
When <code>outcome</code> is <code>unknown</code>, the write may have taken effect: verify before doing anything else.
Quote <code>correlation_id</code> when you report the failure.</p>
<h2>Example</h2>
<pre id="example">{{.ExamplePage}}</pre>
</body></html>
`))

var indexTemplate = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Problem types</title>` + style + `</head>
<body>
<h1>Problem types</h1>
<p>Every failure of this API is an RFC 9457 problem document whose <code>type</code> links here.</p>
` + legacyParagraph + `
<table id="codes">
<thead><tr><th>code</th><th>status</th><th>action</th><th>cause</th><th>retryable</th><th>title</th></tr></thead>
<tbody>
{{range .Codes}}<tr><td><a href="{{.Code}}"><code>{{.Code}}</code></a></td><td>{{.Status}}</td><td><code>{{.Action}}</code></td><td><code>{{.Cause}}</code></td><td>{{.Retryable}}</td><td>{{.Title}}{{with .Deprecated}} <em>(deprecated since {{.Since}}{{if .Successor}}; use <code>{{.Successor}}</code>{{end}})</em>{{end}}</td></tr>
{{end}}</tbody>
</table>
{{with .Retired}}<p id="retired">Retired, never to be reused: {{range $i, $c := .}}{{if $i}}, {{end}}<code>{{$c}}</code>{{end}}.</p>{{end}}
</body></html>
`))
