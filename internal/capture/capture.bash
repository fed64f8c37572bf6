# flower capture: keeps the whole output of every Bash call of Claude Code.
#
# bash reads this file through BASH_ENV before it runs the command string of
# a non-interactive shell; flower's installer names it in the "env" of Claude
# Code's settings. It acts only in the shell Claude Code's Bash tool starts
# for one call, known by its command string (the shape check below); every
# other bash only gets the user's own BASH_ENV, which the installer keeps in
# FLOWER_BASH_ENV, as if this file were not there.
#
# In the Bash tool's shell it creates a new file in the workbench's spill
# folder, prints one line naming it (the marker) to the shell's output, sends
# all further output of the shell (stdout and stderr) to the file, and gives
# BASH_ENV back the user's value, so that shells the command starts are left
# alone. spill-guard then shows the model a short view of the file in place
# of the marker. When anything is not as expected it does nothing, and the
# command runs as it does without flower.
#
# It runs before every Bash call, so it uses builtins only (mkdir runs once,
# when it creates the workbench), defines no function, changes no option for
# longer than one open, and unsets every variable it sets. (exec is never
# run as "builtin exec": that makes its redirections those of the builtin
# command, undone when it returns.) It needs bash 4.2;
# an older bash (macOS's /bin/bash 3.2) only gets the user's BASH_ENV.

_flower_go=
# The Bash tool's shell: Claude Code's child (CLAUDE_PID is Claude Code's
# pid), not tracing its input (-x, -v would print before the marker), with a
# session id fit for a file name (it binds the file to the session
# spill-guard is called for).
if [[ ${CLAUDECODE-} == 1 && -n ${CLAUDE_PID-} && $CLAUDE_PID == "$PPID" && $- != *[xv]* && ! -o posix &&
	-n ${CLAUDE_CODE_SESSION_ID-} && $CLAUDE_CODE_SESSION_ID != *[!A-Za-z0-9-]* &&
	${#CLAUDE_CODE_SESSION_ID} -le 64 ]] &&
	((BASH_VERSINFO[0] > 4 || BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 2)); then
	# The shape check. Claude Code 2.1.328 runs a call as
	#   bash -c 'source SNAPSHOT 2>/dev/null || true && PARTS && eval CMD [< /dev/null] && pwd -P >| CWDFILE'
	# The output is redirected only when every part before eval is one known
	# to write nothing to stdout: a part this file does not know could talk
	# to Claude Code through it. The user's command is the quoted word after
	# eval, so the parts are read from the front (its first 8 KB) and the
	# cwd file from the back, never the whole of a long command: a pattern
	# over 100 KB costs a millisecond or more. tests/e2e TestCaptureShape
	# fails when the pinned CLI changes the string.
	_flower_s=${BASH_EXECUTION_STRING:0:8192}
	if [[ $_flower_s == 'source '*' 2>/dev/null || true && '* ]]; then
		_flower_s=${_flower_s#'source '*' 2>/dev/null || true && '}
	fi
	while :; do
		for _flower_p in \
			'\builtin shopt -u extglob 2>/dev/null || true && ' \
			"{ \\builtin unalias -- 'which'; \\builtin unset -f -- 'which'; } >/dev/null 2>&1 || true && " \
			"{ \\builtin unalias -- 'unsetenv'; \\builtin unset -f -- 'unsetenv'; } >/dev/null 2>&1 || true && " \
			''; do
			[[ -n $_flower_p && $_flower_s == "$_flower_p"* ]] && break
		done
		[[ -n $_flower_p ]] || break
		_flower_s=${_flower_s:${#_flower_p}}
	done
	# The cwd file, last: a plain word, or one in single quotes.
	_flower_p=$BASH_EXECUTION_STRING
	((${#_flower_p} > 512)) && _flower_p=${_flower_p:${#_flower_p}-512}
	if [[ $_flower_p == *' && pwd -P >| '* ]]; then
		_flower_p=${_flower_p##*' && pwd -P >| '}
		if [[ $_flower_p == \'*\' ]]; then
			_flower_p=${_flower_p:1:${#_flower_p}-2}
			[[ $_flower_p == *\'* ]] && _flower_p=
		elif [[ $_flower_p == *[[:space:]\'\"\\\$\`\;\&\|\<\>\(\)]* ]]; then
			_flower_p=
		fi
		# Claude Code sends stderr to the same file as stdout.
		if [[ $_flower_s == 'eval '* && $_flower_p == /*/claude-*-cwd && /dev/stdout -ef /dev/stderr ]]; then
			_flower_go=1
		fi
	fi
fi

# Where the workbench is: FLOWER_WORKBENCH when it names one (the user chose
# it, so it may be a symlink), else .flower in the folder Claude Code was
# started in, where spill-guard finds it ($CLAUDE_PROJECT_DIR, which the Bash
# tool's shell does not get). That folder is Claude Code's own working
# directory, /proc/PID/cwd on Linux, and the shell's cwd is it or a folder
# below it: found by comparing inodes, so no name from the repository is
# parsed. Without /proc (macOS) only FLOWER_WORKBENCH works.
_flower_file=
_flower_dfd=
if [[ -n $_flower_go ]]; then
	_flower_root=
	_flower_named=
	if [[ -n ${FLOWER_WORKBENCH-} ]]; then
		[[ $FLOWER_WORKBENCH == /* ]] && _flower_root=${FLOWER_WORKBENCH%/} _flower_named=1
	elif [[ -e /proc/$PPID/cwd ]]; then
		_flower_root=$PWD
		while [[ -n $_flower_root && ! $_flower_root -ef /proc/$PPID/cwd ]]; do
			_flower_root=${_flower_root%/*}
		done
		if [[ -z $_flower_root ]]; then
			# The call runs outside the project (in an added folder): ask
			# the kernel, at the cost of a fork.
			_flower_root=$(builtin cd -P -- "/proc/$PPID/cwd" 2>/dev/null && builtin pwd)
		fi
		[[ -n $_flower_root ]] && _flower_root=${_flower_root%/}/.flower
	fi
	# A control character in a name would break the marker line.
	if [[ -n $_flower_root && $_flower_root != *[[:cntrl:]]* ]]; then
		if [[ ! -e $_flower_root && ! -L $_flower_root ]] &&
			command mkdir -p -m 700 -- "$_flower_root" 2>/dev/null; then
			# What pkg/workbench writes into a workbench it creates (a test
			# keeps the two equal).
			builtin printf '%s\n' \
				'# Written by flower on creating the workbench; edit freely, it is never replaced.' \
				'# scripts/ and artifacts/ travel with the project; these do not.' \
				'/INDEX.md' '/spill/' '/.state/' 2>/dev/null >"$_flower_root/.gitignore"
		fi
		# A repository can commit .flower or spill/ as a symlink that leads
		# anywhere: refused, as spill-guard refuses them.
		if [[ -d $_flower_root && (-n $_flower_named || ! -L $_flower_root) ]]; then
			if [[ ! -e $_flower_root/spill && ! -L $_flower_root/spill ]]; then
				command mkdir -m 700 -- "$_flower_root/spill" 2>/dev/null
			fi
			if [[ -d $_flower_root/spill && ! -L $_flower_root/spill && -w $_flower_root/spill ]]; then
				# Everything below goes through a handle on the spill folder:
				# the folder is opened once, and its files are named relative
				# to that descriptor (/proc/self/fd/N/NAME), so that a spill/
				# swapped for a symlink after the checks leads no write
				# elsewhere. The folder opened must lie where the checks saw
				# it, which its own parents tell, not a name: under the named
				# workbench, else two levels under Claude Code's working
				# directory. Without /proc (macOS) the workbench is one the
				# user named, whose path is the user's.
				_flower_dir=$_flower_root/spill
				if [[ -d /proc/self/fd ]]; then
					_flower_dir=
					if { exec {_flower_dfd}<"$_flower_root/spill"; } 2>/dev/null &&
						[[ -n $_flower_named && /proc/self/fd/$_flower_dfd/.. -ef $_flower_root ||
							-z $_flower_named && /proc/self/fd/$_flower_dfd/../.. -ef /proc/$PPID/cwd ]]; then
						_flower_dir=/proc/self/fd/$_flower_dfd
					fi
				fi
				# The spill folder's own git ignore rule (spill.IgnoreRule, a
				# test keeps the two equal): no .gitignore above it, committed
				# or not, can then expose the output to a `git add -A`. One
				# missing is written; without flower's rule there, no capture.
				_flower_rule=$'# Written by flower: the tool output kept here never goes into git.\n*\n'
				_flower_gi=
				if [[ -n $_flower_dir && ! -e $_flower_dir/.gitignore && ! -L $_flower_dir/.gitignore && ! -e $_flower_dir/.git ]]; then
					if [[ -o noclobber ]]; then
						builtin printf '%s' "$_flower_rule" 2>/dev/null >"$_flower_dir/.gitignore"
					else
						set -C
						builtin printf '%s' "$_flower_rule" 2>/dev/null >"$_flower_dir/.gitignore"
						set +C
					fi
				fi
				[[ -n $_flower_dir && -f $_flower_dir/.gitignore && ! -L $_flower_dir/.gitignore ]] &&
					IFS= builtin read -r -d '' -n 256 _flower_gi <"$_flower_dir/.gitignore"
				if [[ $_flower_gi == "$_flower_rule" ]]; then
					builtin printf -v _flower_name 'capture-%(%Y%m%d-%H%M%S)T-%s-%s-%s.txt' \
						-1 "$CLAUDE_CODE_SESSION_ID" "$$" "${SRANDOM-$RANDOM$RANDOM}"
					_flower_file=$_flower_root/spill/$_flower_name
				fi
			fi
		fi
	fi
fi

# The file is new: created with O_EXCL (noclobber) under a name no
# repository can know in advance (session id, pid, random), so nothing
# planted there (a symlink, a FIFO) is opened. It is then reopened for
# appending, as Claude Code opens its own output file: a command that
# appends to /dev/stdout must not be overwritten by the shell's next write.
# It is the owner's alone from the start, as spill files are: a spill folder
# the repository committed has the checkout's modes (0755), and the output
# is written while the command runs. The shell's umask, read from /proc
# (builtins only), is set back right after.
if [[ -n $_flower_file && ! -e $_flower_dir/$_flower_name && ! -L $_flower_dir/$_flower_name ]]; then
	_flower_fd=
	_flower_append=
	_flower_umask=
	if [[ -r /proc/$$/status ]]; then
		while builtin read -r _flower_k _flower_umask; do
			[[ $_flower_k == Umask: ]] && break
			_flower_umask=
		done </proc/$$/status
	fi
	[[ $_flower_umask == [0-7][0-7][0-7][0-7] ]] && builtin umask 077
	if [[ -o noclobber ]]; then
		{ exec {_flower_fd}>"$_flower_dir/$_flower_name"; } 2>/dev/null
	else
		set -C
		{ exec {_flower_fd}>"$_flower_dir/$_flower_name"; } 2>/dev/null
		set +C
	fi
	[[ $_flower_umask == [0-7][0-7][0-7][0-7] ]] && builtin umask "$_flower_umask"
	if [[ -n $_flower_fd ]]; then
		{ exec {_flower_append}>>"/dev/fd/$_flower_fd"; } 2>/dev/null
		exec {_flower_fd}>&-
	fi
	if [[ -n $_flower_append ]]; then
		builtin printf '[flower: the whole output of this command is in %s]\n' "$_flower_file"
		exec 1>&"$_flower_append" 2>&1 {_flower_append}>&-
		# Shells the command starts get the user's BASH_ENV, or none.
		if [[ -n ${FLOWER_BASH_ENV-} ]]; then
			BASH_ENV=$FLOWER_BASH_ENV
		else
			builtin unset -v BASH_ENV
		fi
		builtin unset -v FLOWER_BASH_ENV
	fi
fi
[[ -n ${_flower_dfd-} ]] && exec {_flower_dfd}<&-
builtin unset -v _flower_go _flower_s _flower_p _flower_root _flower_named _flower_file _flower_fd _flower_append _flower_k _flower_umask _flower_rule _flower_gi _flower_dir _flower_dfd _flower_name

# The user's own BASH_ENV (moved to FLOWER_BASH_ENV by the installer, back in
# BASH_ENV once the output is captured), expanded as bash expands BASH_ENV;
# never this file again.
_flower_chain=${FLOWER_BASH_ENV-${BASH_ENV-}}
if [[ -n $_flower_chain ]]; then
	if [[ $_flower_chain == *[\$\`]* ]]; then
		builtin eval "_flower_chain=\"${_flower_chain//\"/\\\"}\""
	fi
	if [[ -f $_flower_chain && -r $_flower_chain && ! $_flower_chain -ef ${BASH_SOURCE[0]-} ]]; then
		builtin printf -v _flower_chain '%q' "$_flower_chain"
		builtin eval "builtin unset -v _flower_chain; builtin source $_flower_chain"
	else
		builtin unset -v _flower_chain
	fi
else
	builtin unset -v _flower_chain
fi
