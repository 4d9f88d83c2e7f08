package blackbox
import ("net/http/httptest";"testing";"net/http";"github.com/faultline-go/faultline/problem")
func TestZZ(t *testing.T){
 a := newChiApp(t, false)
 for _, p := range []string{"/err", "/panic"} {
   ans := a.request("POST", p, "")
   t.Logf("%s -> %s", p, ans.body)
 }
 wr := problem.NewWriter()
 for _, k := range []problem.Kind{problem.UpstreamError, problem.Unavailable, problem.UpstreamTimeout, problem.Internal, problem.UpstreamRequestFailed, problem.ClientClosedRequest} {
   rec := httptestRecorder()
   req, _ := http.NewRequest("POST", "/x", nil)
   wr.Write(rec, req, problem.New(k))
   t.Logf("%s: %s %v", k.Name, rec.Body.String(), rec.Header())
 }
}
func httptestRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
