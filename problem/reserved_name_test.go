package problem

import "testing"

// reservedName folds case on every render of a problem with extensions:
// it must not allocate, camelCase names included.
func TestReservedNameFoldsWithoutAllocating(t *testing.T) {
	for name, want := range map[string]bool{
		"retryable": true, "Retryable": true, "RETRY_AFTER_MS": true, "Correlation_Id": true,
		"userId": false, "Retryables": false, "orderCorrelationId": false, "": false,
	} {
		if got := reservedName(name); got != want {
			t.Errorf("reservedName(%q) = %v", name, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = reservedName("userId") || reservedName("TraceID") }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
