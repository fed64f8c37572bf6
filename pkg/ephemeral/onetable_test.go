package ephemeral

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The design rests on one table: the main thread may run a command itself
// exactly when its result may later be expired. These tests read the
// module's source to keep it that way: one decision function, one table,
// and no list of glance commands anywhere else.

// commonWords are table names that are also ordinary words in code (JSON
// keys, field names): a literal "type" or "id" says nothing about a table.
var commonWords = []string{"[", "cd", "cmp", "column", "comm", "command", "cut", "date", "diff",
	"echo", "false", "file", "find", "free", "head", "id", "nl", "paste", "printf", "sort",
	"stat", "tail", "test", "tr", "tree", "true", "type", "uniq", "which"}

// maxTableNames is how many distinctive command names one composite literal
// outside this package may hold: two can be an example, three start a table.
const maxTableNames = 2

// moduleFiles returns the parsed non-test Go files of the module, by path
// relative to its root.
func moduleFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from pkg/ephemeral: %v", err)
	}
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestOneDecisionFunction: the package decides about a command string in
// one place, Glances.Classify. The exported functions of a string are
// Classify and IsEphemeral, the built-in table's (a nil *Glances) methods
// and nothing else; the only exported methods of a string are Glances'
// Classify, IsEphemeral and MainThread; and the last two are nothing but
// Classify(cmd).Glance and .MainThread, behind a first-word check that
// only ever says no where Classify does (TestMayBeGlance, FuzzClassify,
// TestExtrasClassify). TooBigToParse decides nothing about glances: it is
// the parser's limits, which context-audit applies to the commands it
// parses too.
func TestOneDecisionFunction(t *testing.T) {
	t.Parallel()
	var deciders, methods []string
	bodies := map[string]string{}
	for path, f := range moduleFiles(t) {
		if !strings.HasPrefix(path, "pkg/ephemeral/") {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || !takesString(fn.Type) {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil {
				name = receiverType(fn) + "." + name
				methods = append(methods, name)
			} else {
				deciders = append(deciders, name)
			}
			bodies[name] = bodyOf(fn)
		}
	}
	slices.Sort(deciders)
	slices.Sort(methods)
	if diff := cmp.Diff([]string{"Classify", "IsEphemeral", "TooBigToParse"}, deciders); diff != "" {
		t.Errorf("exported functions of a command string (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Glances.Classify", "Glances.IsEphemeral", "Glances.MainThread"}, methods); diff != "" {
		t.Errorf("exported methods of a command string (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"Classify":            "return builtin.Classify(cmd)",
		"IsEphemeral":         "return builtin.IsEphemeral(cmd)",
		"Glances.IsEphemeral": "return g.mayBeGlance(cmd) && g.Classify(cmd).Glance",
		"Glances.MainThread":  "return g.mayBeGlance(cmd) && g.Classify(cmd).MainThread",
	} {
		if bodies[name] != want {
			t.Errorf("%s's body is %q, want %q", name, bodies[name], want)
		}
	}
}

// receiverType is the name of a method's receiver type, without a star.
func receiverType(fn *ast.FuncDecl) string {
	e := fn.Recv.List[0].Type
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestOneTable: the package holds one table of commands (one variable of
// type []*command), and no non-test code elsewhere in the module holds a
// list of glance command names or a function of its own deciding glances.
func TestOneTable(t *testing.T) {
	t.Parallel()
	distinctive := map[string]bool{}
	for _, c := range table {
		if !slices.Contains(commonWords, c.name) {
			distinctive[c.name] = true
		}
	}
	decider := regexp.MustCompile(`(?i)glance|ephemeral|readonly`)
	var tables []string
	for path, f := range moduleFiles(t) {
		inPackage := strings.HasPrefix(path, "pkg/ephemeral/")
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				if inPackage && isCommandSlice(x.Type) {
					for _, name := range x.Names {
						tables = append(tables, path+": "+name.Name)
					}
				}
				for i, v := range x.Values {
					if _, ok := v.(*ast.CompositeLit); ok && inPackage && isCommandSliceLit(v) && x.Type == nil {
						tables = append(tables, path+": "+x.Names[i].Name)
					}
				}
			case *ast.CompositeLit:
				if !inPackage {
					if names := namesIn(x, distinctive); len(names) > maxTableNames {
						t.Errorf("%s: a list of glance commands %v outside pkg/ephemeral: use ephemeral.Classify", path, names)
					}
				}
			case *ast.FuncDecl:
				if !inPackage && decider.MatchString(x.Name.Name) && returnsBool(x.Type) {
					t.Errorf("%s: func %s decides about glances outside pkg/ephemeral: call ephemeral.IsEphemeral", path, x.Name.Name)
				}
			}
			return true
		})
	}
	if diff := cmp.Diff([]string{"pkg/ephemeral/table.go: table"}, tables); diff != "" {
		t.Errorf("tables of commands (-want +got):\n%s", diff)
	}
}

// takesString reports whether a function's first parameter is a string.
func takesString(ft *ast.FuncType) bool {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return false
	}
	id, ok := ft.Params.List[0].Type.(*ast.Ident)
	return ok && id.Name == "string"
}

func returnsBool(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) != 1 {
		return false
	}
	id, ok := ft.Results.List[0].Type.(*ast.Ident)
	return ok && id.Name == "bool"
}

// bodyOf renders a one-statement function body as text, "" for any other
// body.
func bodyOf(fn *ast.FuncDecl) string {
	if fn.Body == nil || len(fn.Body.List) != 1 {
		return ""
	}
	var b strings.Builder
	if err := printer.Fprint(&b, token.NewFileSet(), fn.Body.List[0]); err != nil {
		return ""
	}
	return b.String()
}

// isCommandSlice reports whether a type expression is []*command.
func isCommandSlice(e ast.Expr) bool {
	arr, ok := e.(*ast.ArrayType)
	if !ok {
		return false
	}
	star, ok := arr.Elt.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "command"
}

func isCommandSliceLit(e ast.Expr) bool {
	lit, ok := e.(*ast.CompositeLit)
	return ok && lit.Type != nil && isCommandSlice(lit.Type)
}

// namesIn returns the distinctive command names among the string literals
// directly inside a composite literal (as elements, keys or field values).
func namesIn(lit *ast.CompositeLit, distinctive map[string]bool) []string {
	var names []string
	add := func(e ast.Expr) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return
		}
		if s, err := strconv.Unquote(b.Value); err == nil && distinctive[s] && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			add(kv.Key)
			add(kv.Value)
			continue
		}
		add(e)
	}
	return names
}

// TestGuardCatchesATable makes sure the literal scan above would see a
// second table: it finds one in a source written the way a second table
// would be.
func TestGuardCatchesATable(t *testing.T) {
	t.Parallel()
	src := `package x
var safe = map[string]bool{"ls": true, "cat": true, "git": true, "pwd": true}`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	distinctive := map[string]bool{"ls": true, "cat": true, "git": true, "pwd": true}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok {
			got = append(got, namesIn(lit, distinctive)...)
		}
		return true
	})
	if diff := cmp.Diff([]string{"ls", "cat", "git", "pwd"}, got); diff != "" {
		t.Errorf("names found (-want +got):\n%s", diff)
	}
}
