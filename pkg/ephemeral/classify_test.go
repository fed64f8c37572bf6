package ephemeral

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// classifyCase is one command of the table test. why, for a command that is
// not a glance, is a piece of the reason: the refusal must be for the right
// cause, not merely a refusal.
type classifyCase struct {
	cmd    string
	glance bool
	why    string
}

// glances are commands the main thread may run itself.
var glances = []string{
	"git status",
	"git status -s",
	`git status -s && echo "--- LOG ---" && git log --oneline -10`,
	"git status --porcelain=v1 -b",
	"git log --oneline -20",
	"git log --oneline --graph --all --decorate",
	"git log -p -1 -- src/main.go",
	"git log --format='%h %s' -n 5",
	"git log --grep=fix --since=2.weeks",
	"git log -c -1",
	"git show HEAD",
	"git show --stat HEAD~3",
	"git show HEAD:README.md",
	"git diff",
	"git diff --stat",
	"git diff --cached -- pkg/",
	"git diff HEAD~1..HEAD --name-only",
	"git diff --no-ext-diff --no-textconv",
	"git diff --output-indicator-new=+",
	"git branch",
	"git branch -a",
	"git branch -vv",
	"git branch -r",
	"git branch --show-current",
	"git branch --list 'feat/*'",
	"git branch -l",
	"git branch --contains abc123",
	"git branch --merged main",
	"git branch --sort=-committerdate --format='%(refname:short)'",
	"git tag",
	"git tag -l 'v1.*'",
	"git tag --list",
	"git tag -n5",
	"git tag --sort=-v:refname",
	"git rev-parse HEAD",
	"git rev-parse --show-toplevel",
	"git rev-parse --abbrev-ref HEAD",
	"git rev-parse HEAD@{1}",
	"git ls-files",
	"git ls-files -m",
	"git ls-tree -r HEAD",
	"git blame -L 10,20 main.go",
	"git remote",
	"git remote -v",
	"git remote get-url origin",
	"git stash list",
	"git stash show -p stash@{0}",
	"git describe --tags --always",
	"git shortlog -sn",
	"git rev-list --count HEAD",
	"git show-ref --tags",
	"git merge-base main HEAD",
	"git cat-file -p HEAD",
	"git grep -n TODO",
	"git --no-pager log -3",
	"git -P diff",
	"git --no-optional-locks status",
	"ls",
	"ls -la",
	"ls -la /tmp",
	"ls *.go",
	"ls src/*.go | wc -l",
	"ls ~/projects",
	"ls 2>/dev/null",
	"ls >/dev/null 2>&1",
	"ls &>/dev/null",
	"ls -d */",
	"cat README.md",
	"cat -n main.go",
	"cat < input.txt",
	"cat a.txt b.txt | sort | uniq -c | sort -rn | head",
	"head -n 20 file.txt",
	"head -c 100 file",
	"tail -n 50 log.txt",
	"tail -5 log.txt",
	"tail +5 log.txt",
	"wc -l *.go",
	"pwd",
	"cd src && ls",
	"cd / && ls",
	"git status && cd /tmp",
	"echo hello",
	"echo \"--- LOG ---\"",
	"echo 'a b' c",
	"echo {a,b}",
	"printf '%s\\n' hello",
	"grep -rn TODO .",
	"grep -c foo *.txt",
	"egrep 'a|b' f",
	"fgrep -x foo f",
	"rg TODO",
	"rg -n --type go 'func main'",
	"rg --pretty TODO",
	"find . -name '*.go'",
	"find . -type f -newer go.mod",
	"find . -maxdepth 2 -type d",
	"find src -name '*.go' -print",
	"sed -n '1,20p' file",
	"sed -n 5p file",
	"sed -n '/start/,/end/p' file",
	"sed -n -e '1p' -e '$p' file",
	"sed -n 's/foo/bar/p' file",
	"sed -n 's|a|b|gp' file",
	"sed -n '$=' file",
	"sed -n '10q;p' file",
	"sed -nE '/^func /p' main.go",
	"sed -n 'swawbw' f", // s with w as its delimiter, no flags
	"sort file",
	"sort -u -k2,2 file",
	"sort -rn counts.txt",
	"uniq file",
	"uniq -c",
	"uniq -f 1 file",
	"cut -d: -f1 /etc/passwd",
	"tr a-z A-Z < f",
	"diff a.txt b.txt",
	"diff -u old new",
	"cmp a b",
	"comm -12 a b",
	"stat go.mod",
	"file main.go",
	"du -sh .",
	"df -h",
	"tree -L 2",
	"basename /a/b/c.go",
	"dirname /a/b/c.go",
	"realpath .",
	"readlink -f link",
	"which go",
	"type ls",
	"command -v go",
	"jq .name package.json",
	"jq -r '.[] | .id' data.json",
	"sha256sum go.sum",
	"md5sum -c sums.md5",
	"date",
	"date +%Y-%m-%d",
	"date -u",
	"date -d yesterday +%s",
	"whoami",
	"id",
	"uname -a",
	"hostname",
	"hostname -f",
	"ps aux",
	"free -m",
	"uptime",
	"true",
	"test -f go.mod && cat go.mod",
	"[ -d .git ] && git status",
	"! grep -q foo f",
	"git status; git log -1",
	"git status\ngit log -1",
	"ls # just looking",
	"git log --oneline | head -5",
	"git diff 2>&1 | head",
	"ls -l\\\n -a",
	"nl file",
	"column -t file",
	"printenv PATH",
	// Plain readers that joined the table.
	"seq 1 10",
	"seq 5",
	"seq -w 1 10",
	"seq -s, 1 5",
	"git version",
	"git --version",
	"od -c file",
	"hexdump -C file | head",
	"base64 file",
	"strings bin | head",
	"fold -w 80 f",
	"nproc",
	"arch",
	"groups",
	// What the hardening rules leave alone.
	"git log --format='%h %an %s'",
	"git log HEAD~3..HEAD",
	"test -f go.mod",
	"[ -n x ]",
	"ls /proc/self/fd",
	"cat /proc/cpuinfo",
	"grep x /proc/cpuinfo",
	"ls /*",
	"ls -d /*/",
	"grep -rn TODO src",
	"grep -c x /dev/null",
	"find /dev -maxdepth 1 -name null",
	"ls ~",
	"cd src && cat a.go",
	"echo {1..5}",
	"ls 2>&1 1>/dev/null",
	"cat <&0",
	"ls >&-",
	"file -b main.go",
	"diff -u a b",
	// Characters both bash and the parser read as part of a word.
	"ls \u2028rm -rf x",
	"ls \u0085",
	"ls \u00a0",
}

// refused are commands that are not glances, from every category.
var refused = []classifyCase{
	// Not on the table, alone or in a compound.
	{"rm -rf x", false, "rm: writes or removes files"},
	{"git status && rm -rf x", false, "rm:"},
	{"ls; rm x", false, "rm:"},
	{"ls || rm x", false, "rm:"},
	{"ls | rm x", false, "rm:"},
	{"ls\nrm -rf x", false, "rm:"},
	{"ls\n\nrm -rf x", false, "rm:"},
	{"ls\r\nrm -rf x", false, "control character"},
	{"make build", false, "make: not on the glance table"},
	{"go test ./...", false, "go: builds and runs code"},
	{"npm install", false, "npm: not on the glance table"},
	{"touch x", false, "touch:"},
	{"mkdir d", false, "mkdir:"},
	{"mv a b", false, "mv:"},
	{"cp a b", false, "cp:"},
	{"chmod +x f", false, "chmod:"},
	{"ln -s a b", false, "ln:"},
	{"tee out.txt", false, "tee:"},
	{"ls | tee out.txt", false, "tee:"},
	{"dd if=/dev/zero of=f", false, "dd:"},
	{"awk '{print $1}' f", false, "awk: a programming language"},
	{"python3 -c 'print(1)'", false, "python3:"},
	{"kill 1", false, "kill:"},
	// Quoting and escaping of the command word.
	{"'rm' x", false, "not a plain word"},
	{"\\rm x", false, "not a plain word"},
	{"l\"s\"", false, "not a plain word"},
	{"\"ls\"", false, "not a plain word"},
	{"$CMD x", false, "not a plain word"},
	{"$(echo ls)", false, "not a plain word"},
	{"l?", false, "not a plain word"},
	{"/bin/rm x", false, "/bin/rm: not on the glance table"},
	{"./ls", false, "not on the glance table"},
	{"r\\\nm -rf x", false, "rm:"},
	// Runners of other commands.
	{"env ls", false, "env: runs another command"},
	{"env", false, "env:"},
	{"xargs rm < list", false, "xargs: runs another command"},
	{"find . | xargs cat", false, "xargs:"},
	{"sudo ls", false, "sudo:"},
	{"time ls", false, "time runs another command"},
	{"nohup ls", false, "nohup:"},
	{"timeout 5 ls", false, "timeout:"},
	{"nice ls", false, "nice:"},
	{"bash -c 'ls'", false, "bash:"},
	{"sh -c ls", false, "sh:"},
	{"eval ls", false, "eval:"},
	{"exec ls", false, "exec:"},
	{"source env.sh", false, "source:"},
	{". env.sh", false, ".:"},
	{"command ls", false, "command without -v"},
	{"command -p rm x", false, "command without -v"},
	{"builtin echo x", false, "builtin:"},
	// Interactive or endless.
	{"less file", false, "less: interactive"},
	{"more file", false, "more:"},
	{"vim file", false, "vim:"},
	{"top", false, "top:"},
	{"watch ls", false, "watch:"},
	{"tail -f log", false, "tail -f follows"},
	{"tail -F log", false, "follows"},
	{"tail --follow=name log", false, "follows"},
	{"tail --fol log", false, "follows"},
	{"tail -n5 -f log", false, "follows"},
	{"tail -5f log", false, "follows"},
	{"tail +5f log", false, "follows"},
	{"yes", false, "yes:"},
	// Redirections.
	{"ls > out.txt", false, "redirection > out.txt writes a file"},
	{"ls >> out.txt", false, "writes a file"},
	{"ls &> out.txt", false, "writes a file"},
	{"ls &>> out.txt", false, "writes a file"},
	{"ls >| out.txt", false, "writes a file"},
	{"ls 2> err.txt", false, "writes a file"},
	{"ls >&out.txt", false, "writes a file"},
	{"ls > /dev/nul", false, "writes a file"},
	{"ls > /dev/null*", false, "may expand"},
	{"ls > $F", false, "parameter expansion"},
	{"> out.txt", false, "redirection without a command"},
	{"ls <> f", false, "opens a file for writing"},
	{"cat <<EOF\nhi\nEOF", false, "here-document"},
	{"cat <<-EOF\n\thi\n\tEOF", false, "here-document"},
	{"cat <<< hi", false, "here-string"},
	{"ls {fd}>/dev/null", false, "assigns a variable"},
	{"git status > s.txt", false, "writes a file"},
	// Devices and kernel streams a reader may never finish.
	{"cat /dev/zero", false, "may never end"},
	{"cat /dev/urandom | head -c 10", false, "may never end"},
	{"grep --file=/dev/tty x", false, "may never end"},
	{"cat /proc/kmsg", false, "may never end"},
	{"cat /sys/kernel/debug/tracing/trace_pipe", false, "may never end"},
	{"ls /dev", true, ""},
	{"cat f 2>/dev/null", true, ""},
	{"wc -l /dev/null", true, ""},
	// Substitutions and expansions.
	{"echo $(rm -rf x)", false, "command substitution"},
	{"echo `rm x`", false, "command substitution"},
	{"cat <(ls)", false, "process substitution"},
	{"diff <(ls a) <(ls b)", false, "process substitution"},
	{"echo \"$(id)\"", false, "command substitution"},
	{"ls $HOME", false, "parameter expansion"},
	{"echo ${x:=1}", false, "parameter expansion"},
	{"echo $((1+2))", false, "arithmetic expansion"},
	{"echo $'\\x41'", false, "ANSI-C quoting"},
	{"ls @(a|b)", false, "extended glob"},
	// Compound commands and shell state.
	{"(ls)", false, "subshell"},
	{"{ ls; }", false, "group"},
	{"f() { rm x; }; f", false, "function definition"},
	{"ls() { rm -rf x; }; ls", false, "function definition"},
	{"for f in *; do cat $f; done", false, "loop"},
	{"while true; do ls; done", false, "loop"},
	{"if true; then ls; fi", false, "conditional"},
	{"case x in x) ls;; esac", false, "conditional"},
	{"[[ -f x ]]", false, "[[ … ]]"},
	{"((x++))", false, "arithmetic"},
	{"let x=1", false, "arithmetic"},
	{"export A=1", false, "declaration"},
	{"declare -x A=1", false, "declaration"},
	{"ls &", false, "background"},
	{"sleep 10 & ls", false, "background"},
	{"coproc ls", false, "coprocess"},
	{"A=1", false, "assignment A=1 changes the shell"},
	{"PAGER=x git log", false, "environment assignment PAGER=x"},
	{"LD_PRELOAD=/tmp/x.so ls", false, "environment assignment"},
	{"GIT_EXTERNAL_DIFF=x git diff", false, "environment assignment"},
	// git.
	{"git -c core.pager=sh log", false, "git -c sets configuration"},
	{"git -ccore.pager=sh log", false, "git -c"},
	{"git --config-env=core.pager=X log", false, "sets configuration"},
	{"git --exec-path=/tmp log", false, "runs git programs"},
	{"git --exec-path", false, "runs git programs"},
	{"git -p log", false, "starts a pager"},
	{"git --paginate log", false, "starts a pager"},
	{"git --work-tree", false, "points git at another repository"},
	{"git --frobnicate status", false, "not on the table"},
	{"git", false, "without a subcommand"},
	{"git -C", false, "points git at another repository"},
	{"git -C * status", false, "may expand"},
	{"git log --output=x", false, "git log --output=x writes the output to a file"},
	{"git log --outp=x", false, "writes the output"},
	{"git diff --output x", false, "writes the output"},
	{"git diff --ext-diff", false, "external diff"},
	{"git diff --ext", false, "external diff"},
	{"git log -p --textconv", false, "text conversion"},
	{"git cat-file --filters HEAD:x", false, "conversion filters"},
	{"git grep -O TODO", false, "opens the matches"},
	{"git grep --open-files-in-pager=vim TODO", false, "opens the matches"},
	{"git commit -m x", false, "git commit: not a read-only git subcommand"},
	{"git push", false, "git push:"},
	{"git checkout main", false, "git checkout:"},
	{"git reset --hard", false, "git reset:"},
	{"git config user.name", false, "git config:"},
	{"git st", false, "git st:"},
	{"git branch newbranch", false, "creates a branch"},
	{"git branch -d old", false, "is not on the table"},
	{"git branch -D old", false, "is not on the table"},
	{"git branch -m a b", false, "is not on the table"},
	{"git branch -f main HEAD~1", false, "is not on the table"},
	{"git branch --set-upstream-to=origin/main", false, "is not on the table"},
	{"git branch --format -l newbranch", false, "without a plain value"},
	{"git branch -a newbranch", false, "creates a branch"},
	{"git branch --contains HEAD newbranch", false, "creates a branch"},
	{"git tag v1.0", false, "creates a tag"},
	{"git tag -d v1.0", false, "is not on the table"},
	{"git tag -a v1 -m x", false, "is not on the table"},
	{"git tag -n 5", false, "creates a tag"},
	{"git stash", false, "changes the repository"},
	{"git stash pop", false, "not a read-only form"},
	{"git stash -p", false, "changes the repository"},
	{"git remote add origin url", false, "not a read-only form"},
	{"git remote -v add origin url", false, "not a read-only form"},
	{"git remote set-url origin x", false, "not a read-only form"},
	{"git log *", false, "may expand to an option"},
	// find.
	{"find . -delete", false, "find -delete deletes files"},
	{"find . -name '*.tmp' -delete", false, "deletes files"},
	{"find . -exec rm {} \\;", false, "find -exec runs a command"},
	{"find . -execdir rm {} +", false, "runs a command"},
	{"find . -ok rm {} \\;", false, "runs a command"},
	{"find . -okdir rm {} \\;", false, "runs a command"},
	{"find . -fprint out", false, "writes a file"},
	{"find . -fprint0 out", false, "writes a file"},
	{"find . -fprintf out %p", false, "writes a file"},
	{"find . -fls out", false, "writes a file"},
	{"find . -de''lete", false, "deletes files"},
	{"find . \"-delete\"", false, "deletes files"},
	{"find . {-delete,-print}", false, "brace-expand"},
	{"find *", false, "may expand to an option"},
	// sed.
	{"sed -i s/a/b/ f", false, "sed option -i"},
	{"sed -n -i 1p f", false, "sed option -i"},
	{"sed --in-place -n 1p f", false, "sed option --in-place"},
	{"sed s/a/b/ f", false, "without -n"},
	{"sed -n '1w out' f", false, "command w is not a print command"},
	{"sed -n 's/a/b/w out' f", false, "s flag w writes a file"},
	{"sed -n 's/a/b/e' f", false, "s flag e runs a command"},
	{"sed -n '1e ls' f", false, "command e"},
	{"sed -n '1r /etc/passwd' f", false, "command r"},
	{"sed -n 'W out' f", false, "command W"},
	{"sed -n -f script.sed f", false, "sed option -f"},
	{"sed -n '1{p}' f", false, "command {"},
	{"sed -n 's/a/b/pw x' f", false, "writes a file"},
	{"sed -n 'swawbwpw x' f", false, "s flag w"},
	{"sed -n 1d f", false, "command d"},
	{"sed -n '/x/!p;1 w out' f", false, "command w"},
	// sort, uniq and other flag rules.
	{"sort -o f f", false, "sort -o writes the output to a file"},
	{"sort -rof f", false, "writes the output"},
	{"sort --output=f f", false, "writes the output"},
	{"sort --outp=f f", false, "writes the output"},
	{"sort --compress-program=sh f", false, "runs a compression program"},
	{"sort *.txt", false, "may expand to an option"},
	{"sort -- -*", false, "may expand to an option"},
	{"uniq in out", false, "output file"},
	{"uniq -c in out", false, "output file"},
	{"uniq -f 1 in out", false, "output file"},
	{"uniq *", false, "may expand"},
	{"rg --pre ./x TODO", false, "runs a preprocessor"},
	{"rg --pre=./x TODO", false, "runs a preprocessor"},
	{"rg --pre-glob '*.pdf' --pre x TODO", false, "runs a preprocessor"},
	{"rg -z TODO", false, "decompression"},
	{"rg --hostname-bin=./x TODO", false, "runs a command"},
	{"tree -o out.txt", false, "writes the output"},
	{"tree -R -H . ", false, "00Tree.html"},
	{"file -C -m magic", false, "compiled magic"},
	{"date -s '2020-01-01'", false, "sets the system clock"},
	{"date --set=x", false, "sets the system clock"},
	{"date 010100002020", false, "sets the clock"},
	{"hostname evil", false, "sets the host name"},
	{"hostname -F /etc/hostname", false, "not on the table"},
	{"hostname -b x", false, "not on the table"},
	{"printf -v x %s hi", false, "assigns a shell variable"},
	{"cd a b", false, "more operands"},
	{"cd *", false, "may expand"},
	{"ls -l\\\n; rm x", false, "rm:"},
	// The parser and bash read the text differently: bash ends a comment at
	// the newline (the parser continues it past a backslash), keeps a
	// carriage return inside a word, cannot hold a NUL byte.
	{"git status -s # note \\\nrm -f README.md", false, "a comment ending in a backslash"},
	{"ls # note \\", false, "a comment ending in a backslash"},
	{"ls && # c \\\nrm x", false, "a comment ending in a backslash"},
	{"ls | # c \\\n rm x", false, "a comment ending in a backslash"},
	{"ls; # c \\\nrm", false, "a comment ending in a backslash"},
	{"git status -s # note \\\nrm -f x -s #", false, "a comment ending in a backslash"}, // found by FuzzClassify under bash
	{"ls # a \\\nrm # b", false, "a comment ending in a backslash"},
	{"ls # a\\b\nrm", false, "rm:"},
	{"ls \r# ; touch x", false, "control character '\\r'"},
	{"ls\r", false, "control character"},
	{"\rls", false, "control character"},
	{"l\x00s", false, "control character '\\x00'"},
	{"ls \x00; rm x", false, "control character"},
	{"ls\frm x", false, "control character"},
	{"ls\vrm x", false, "control character"},
	{"ls \x1b[2J", false, "control character"},
	{"ls \x7f", false, "control character"},
	{"ls \xff", false, "not valid UTF-8"},
	{"echo $[1+2]", false, "arithmetic expansion"},
	{"echo $\"x\"", false, "locale quoting"},
	{"ls !(x)", false, "extended glob"},
	{"ls +(a)", false, "extended glob"},
	{"ls *(a)", false, "extended glob"},
	{"ls ?(a|b)", false, "extended glob"},
	{"echo ~root/x", false, "tilde expansion"},
	{"cat ~+/x", false, "tilde expansion"},
	{"cd ~-", false, "tilde expansion"},
	{"echo a=~/x", false, "tilde expansion after ="},
	{"ls x:~root", false, "tilde expansion after"},
	// Network through redirections, and descriptors above 2.
	{"cat .env 0</dev/tcp/127.0.0.1/9 1>&0", false, "network connection"},
	{"ls 3</dev/udp/h/p >&3", false, "descriptor 3"},
	{"ls >&3 3</dev/udp/h/p", false, "descriptor 3"},
	{"cat /dev/tcp/127.0.0.1/9", false, "network connection"},
	{"echo x > /dev/tcp/h/1", false, "network connection"},
	{"cat < //dev/tcp/h/1", false, "network connection"},
	{"echo /dev/udp/h/1", false, "network connection"},
	{"ls 4>/dev/null", false, "descriptor 4"},
	{"ls 2>&10", false, "descriptor 10"},
	{"cat <&3", false, "descriptor 3"},
	{"cat 0<&3", false, "descriptor 3"},
	// Code in a test operand: bash evaluates a subscript.
	{"test -v 'a[$(touch p)]'", false, "names a variable"},
	{"[ -v 'x[$(cmd)]' ]", false, "names a variable"},
	{"test -R ref", false, "names a variable"},
	{"test -n 'a[$(touch p)]'", false, "holds a ["},
	{"[ x = 'a[1]' ]", false, "holds a ["},
	{"test -e a[bc]", false, "holds a ["},
	{"test *", false, "may expand to an option"},
	{"[ * ]", false, "may expand to an option"},
	// git pointed at another repository, whose config may run programs.
	{"git -C fixtures/evil.git status", false, "git -C points git at another repository"},
	{"git --git-dir=evil.git log", false, "git --git-dir points git"},
	{"git --git-dir evil.git log", false, "git --git-dir points git"},
	{"git --work-tree=x status", false, "git --work-tree points git"},
	{"git --bare log", false, "git --bare points git"},
	{"cd fixtures/evil.git && git status", false, "git after cd"},
	{"cd x; git diff", false, "git after cd"},
	{"cd x || git log", false, "git after cd"},
	{"cd -P x && ls && git status -s", false, "git after cd"},
	{"git log --show-signature", false, "runs gpg"},
	{"git show --show-sig", false, "runs gpg"},
	{"git log --format='%G?'", false, "runs gpg"},
	{"git log --pretty='%h %GS'", false, "runs gpg"},
	{"git branch --format='%(signature)'", false, "runs gpg"},
	// Options that run helper programs.
	{"file -z x.gz", false, "file -z runs decompression programs"},
	{"file -Z x.gz", false, "runs decompression programs"},
	{"file -bz x.gz", false, "runs decompression programs"},
	{"file --uncompress x.gz", false, "runs decompression programs"},
	{"file --uncompress-noreport x.gz", false, "runs decompression programs"},
	{"file --unc x.gz", false, "runs decompression programs"},
	{"diff -l a b", false, "runs pr"},
	{"diff --paginate a b", false, "runs pr"},
	{"go version", false, "go.mod"},
	// Endless reads: devices through redirections and after normalisation.
	{"cat < /dev/zero", false, "may never end"},
	{"wc -l < /dev/urandom", false, "may never end"},
	{"cat /./dev/zero", false, "may never end"},
	{"cat //dev/zero", false, "may never end"},
	{"cat /tmp/../dev/zero", false, "may never end"},
	{"cat /dev/zero/", false, "may never end"},
	{"cd /dev && cat zero", false, "cd /dev: a folder of devices"},
	{"cd /proc && cat kmsg", false, "cd /proc: a folder of devices"},
	{"cd / && cat dev/zero", false, "may never end"},
	{"cd / && wc -c < dev/zero", false, "may never end"},
	{"cd /tmp && cat ../dev/zero", false, "may never end"},
	{"cd / && cd dev", false, "cd /dev: a folder of devices"},
	{"cd /a; cd /b; cd /c; cd /d; cd /e; cd /f; cd /g; cd /h; cd /i", false, "more often than"},
	{"grep -r x /dev -D read", false, "-D chooses to read devices"},
	{"grep -R x /dev", false, "read recursively"}, // found by FuzzClassify: blocks on a descriptor under /dev/fd
	{"grep -r x /dev", false, "read recursively"},
	{"grep -r x /", false, "read recursively"},
	{"grep -rn x /proc/self", false, "read recursively"},
	{"grep -r x /*", false, "read recursively"},
	{"egrep --recursive x /sys", false, "read recursively"},
	{"grep -d recurse x /proc", false, "read recursively"},
	{"cd / && grep -r x .", false, "read recursively"},
	{"cd / && grep -r x", false, "read recursively"}, // found by FuzzClassify
	{"cd / && rg x", false, "read recursively"},
	{"rg x /sys", false, "read recursively"},
	{"diff -r /proc/self /tmp", false, "read recursively"},
	{"cat /proc/self/pagemap", false, "may never end"},
	{"wc -c /proc/kcore", false, "may never end"},
	{"head /proc/1/task/1/mem", false, "may never end"},
	{"grep -rDread x /dev", false, "read devices"},
	{"grep --devices=read -r x /dev", false, "read devices"},
	{"cat /dev/zer?", false, "may never end"},
	{"cat /d*/zero", false, "may never end"},
	{"cat /*/*", false, "may never end"},
	{"cat /**", false, "may never end"},
	{"head -c 10 /proc/self/fd/0", false, "may never end"},
	{"cat /proc/*/fd/3", false, "may never end"},
	{"grep -f/dev/zero x", false, "may never end"},
	{"cat /sys/kernel/tracing/trace_pipe", false, "may never end"},
	{"cat /sys/kernel/tracing/trace_pip?", false, "may never end"},
	{"sort -R --random-source=/dev/urandom f", false, "may never end"},
	{"od /dev/urandom", false, "may never end"},
	// Output that never ends or that bash builds before the command runs.
	{"echo {1..100000}", false, "more than 256 words"},
	{"echo {a..e}{0..9}", true, ""},
	{"echo {0..255}", true, ""},
	{"echo {0..256}", false, "more than 256 words"},
	{"echo {1..1000..4}", true, ""},
	{"echo {a,{b,c}}{1..100}", false, "more than 256 words"},
	{"echo {1..999999999999999999}", false, "more than 256 words"},
	{"echo {1..99999999999999999999}", true, ""}, // past int64, bash keeps it as it is
	{"echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", false, "more than 256 words"},
	{"seq 1 inf", false, "whole numbers"},
	{"seq 1 10000000", false, "whole numbers"},
	{"seq -f %g 1 5", false, "option -f"},
	{"seq -5 5", false, "option -5"},
	// Parse errors and nothing.
	{"ls 'unterminated", false, "parse error"},
	{"ls &&", false, "parse error"},
	{"| ls", false, "parse error"},
	{"", false, "no command"},
	{"   \n  ", false, "no command"},
	{"# only a comment", false, "no command"},
}

// classifyCases is the whole table: glances and refusals.
func classifyCases() []classifyCase {
	cases := make([]classifyCase, 0, len(glances)+len(refused))
	for _, g := range glances {
		cases = append(cases, classifyCase{cmd: g, glance: true})
	}
	return append(cases, refused...)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	if n := len(classifyCases()); n < 150 {
		t.Fatalf("the table holds %d commands, the issue asks for at least 150", n)
	}
	for _, tc := range classifyCases() {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			got := Classify(tc.cmd)
			if diff := cmp.Diff(tc.glance, got.Glance); diff != "" {
				t.Errorf("Classify(%q).Glance (-want +got):\n%s\nreason: %s", tc.cmd, diff, got.Reason)
			}
			if !strings.Contains(got.Reason, tc.why) {
				t.Errorf("Classify(%q).Reason = %q, want it to contain %q", tc.cmd, got.Reason, tc.why)
			}
			if got.Reason == "" || strings.Contains(got.Reason, "\n") {
				t.Errorf("Classify(%q).Reason = %q, want one non-empty line", tc.cmd, got.Reason)
			}
			checkInvariants(t, tc.cmd, got)
		})
	}
}

// checkInvariants holds for every verdict: a glance has segments and every
// one of them is a glance; a refusal names a segment that is not (unless the
// line had none to name); segments are source text of cmd.
func checkInvariants(t *testing.T, cmd string, v Verdict) {
	t.Helper()
	if v.Glance && len(v.Segments) == 0 {
		t.Errorf("Classify(%q) is a glance with no segments", cmd)
	}
	refusedOne := false
	for _, s := range v.Segments {
		if v.Glance && !s.Glance {
			t.Errorf("Classify(%q) is a glance but segment %q is not: %s", cmd, s.Command, s.Reason)
		}
		if !s.Glance {
			refusedOne = true
		}
		if s.Reason == "" {
			t.Errorf("Classify(%q): segment %q has no reason", cmd, s.Command)
		}
		if !strings.Contains(cmd, s.Command) {
			t.Errorf("Classify(%q): segment %q is not part of the command", cmd, s.Command)
		}
	}
	if !v.Glance && len(v.Segments) > 0 && !refusedOne {
		t.Errorf("Classify(%q) is refused but every segment is a glance", cmd)
	}
}

// TestSegments pins how a compound command is split and what each part says.
func TestSegments(t *testing.T) {
	t.Parallel()
	got := Classify(`git status -s && echo "--- LOG ---" | grep x; rm -rf x 2>/dev/null`)
	want := Verdict{
		Reason: "rm: writes or removes files",
		Segments: []Segment{
			{Command: "git status -s", Glance: true, Reason: "git status: read-only git subcommand"},
			{Command: `echo "--- LOG ---"`, Glance: true, Reason: "echo: prints its arguments"},
			{Command: "grep x", Glance: true, Reason: "grep: searches text"},
			{Command: "rm -rf x 2>/dev/null", Reason: "rm: writes or removes files"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Classify mismatch (-want +got):\n%s", diff)
	}
	got = Classify("git status && ls -la")
	want = Verdict{
		Glance: true,
		Reason: "every command is a glance: git status, ls",
		Segments: []Segment{
			{Command: "git status", Glance: true, Reason: "git status: read-only git subcommand"},
			{Command: "ls -la", Glance: true, Reason: "ls: lists directory contents"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Classify mismatch (-want +got):\n%s", diff)
	}
}

func TestSedScript(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		ok     bool
	}{
		{"p", true},
		{"1p", true},
		{"1,5p", true},
		{"$p", true},
		{"$=", true},
		{"/re/p", true},
		{"/a\\/b/p", true},
		{"\\,a/b,p", true},
		{"/re/I,+3p", true},
		{"0~4p", true},
		{"5q", true},
		{"1!p", true},
		{"s/a/b/gp", true},
		{"s,a/b,c,2p", true},
		{"p;p", true},
		{"1p\n2p", true},
		{"w x", false},
		{"1,5w x", false},
		{"s/a/b/w x", false},
		{"s/a/b/e", false},
		{"e ls", false},
		{"r f", false},
		{"R f", false},
		{"W f", false},
		{"1{p}", false},
		{"y/a/b/", false},
		{"a text", false},
		{"i text", false},
		{"c text", false},
		{"#n", false},
		{"s/a", false},
		{"s/a/b", false},
		{"/unterminated", false},
		{"1,", false},
		{"s/a\nb/c/", false},
		{"pw x", false},
	} {
		got := sedScript(tc.script) == ""
		if diff := cmp.Diff(tc.ok, got); diff != "" {
			t.Errorf("sedScript(%q) ok (-want +got):\n%s\nreason: %s", tc.script, diff, sedScript(tc.script))
		}
	}
}
