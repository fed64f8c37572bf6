package ephemeral

// TableCase is one command of the classifier's table test with the verdict
// it must get, exported for the cross-layer test in sides_test.go.
type TableCase struct {
	Cmd    string
	Glance bool
}

// TableCases returns the table test's commands.
func TableCases() []TableCase {
	var out []TableCase
	for _, tc := range classifyCases() {
		out = append(out, TableCase{Cmd: tc.cmd, Glance: tc.glance})
	}
	return out
}
