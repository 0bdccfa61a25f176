# Helpers shared by the command-line test scripts (sourced, not run).
# The caller sets WORK (a temporary directory) before sourcing.
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# expect_exit <code> <description> <command...>: stdout in $WORK/out, stderr in $WORK/err.
expect_exit() {
    local want=$1 what=$2
    shift 2
    local got=0
    "$@" >"$WORK/out" 2>"$WORK/err" </dev/null || got=$?
    if [ "$got" -eq "$want" ]; then ok "$what (exit $got)"; else
        fail "$what: exit $got, expected $want"; cat "$WORK/out" "$WORK/err" >&2; fi
}
# err_has <text> <description>: the last command's stderr contains text.
err_has() { grep -qF -- "$1" "$WORK/err" && ok "$2" || { fail "$2: stderr lacks \"$1\""; cat "$WORK/err" >&2; }; }
# out_has <text> <description>: the last command's stdout contains text.
out_has() { grep -qF -- "$1" "$WORK/out" && ok "$2" || { fail "$2: stdout lacks \"$1\""; cat "$WORK/out" >&2; }; }
