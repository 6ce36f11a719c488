# shellcheck shell=bash
# Headless Chromium and playwright-core for the browser checks of the HTML
# reports (scripts/testenv/check_report.js); sourced by scripts/test.
#
#   setup_browser DIR  → - installs Debian's chromium when /usr/bin/chromium is
#                          missing (root only: apt-get; about 20 s);
#                        - installs npm playwright-core into DIR/node_modules
#                          (the node directory the tests already use), with
#                          PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD so that it never
#                          downloads a browser of its own (that fails here:
#                          only the package registries are reachable);
#                        - exports SQUILL_TEST_CHROMIUM (/usr/bin/chromium) and
#                          SQUILL_TEST_NODE (node); NODE_PATH must hold
#                          DIR/node_modules (scripts/test sets it).
#                      Returns 1 with the failing step's output when a step fails.

setup_browser() {
    local node_dir="$1"
    if [[ ! -x /usr/bin/chromium ]]; then
        if [[ "$(id -u)" != 0 ]]; then
            echo "testenv: /usr/bin/chromium is missing and installing it needs root" >&2
            return 1
        fi
        echo "testenv: installing chromium (Debian package)"
        local log
        log="$(mktemp -t browser-install.XXXXXX.log)"
        if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            return 1
        fi
        rm -f "$log"
    fi
    if ! command -v node >/dev/null; then
        echo "testenv: node is missing" >&2
        return 1
    fi
    if [[ ! -f "$node_dir/node_modules/playwright-core/package.json" ]]; then
        echo "testenv: installing playwright-core into $node_dir"
        mkdir -p "$node_dir"
        [[ -f "$node_dir/package.json" ]] || echo '{"private": true}' >"$node_dir/package.json"
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$node_dir" --no-audit --no-fund \
            --loglevel=error playwright-core >/dev/null || return 1
    fi
    export SQUILL_TEST_CHROMIUM=/usr/bin/chromium
    SQUILL_TEST_NODE="$(command -v node)"
    export SQUILL_TEST_NODE
}
