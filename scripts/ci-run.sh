#!/bin/sh
# Runs a Proctor test plan from CI and waits for the result: exit 0 only when the run PASSED.
#
#   PROCTOR_URL=https://proctor.example.com PROCTOR_TOKEN=prt_... sh scripts/ci-run.sh
#
# Required: PROCTOR_URL (the API's base URL, without /v1), PROCTOR_TOKEN (an API token, prt_...).
# Optional: PROCTOR_TEST_PLAN (a test plan short id; default: the project's default plan),
#           POLL_INTERVAL (seconds between status checks, default 5),
#           PROCTOR_TIMEOUT (seconds to wait for the run to end, default 3600; 0 waits forever),
#           PROCTOR_TRIGGER, PROCTOR_BRANCH, PROCTOR_COMMIT (override what is read from the CI's variables).
# Needs curl and jq. Exit codes: 0 passed, 1 the run ended otherwise (failed, error, cancelled),
# 2 bad usage, 3 an HTTP or API error, 4 the run did not end within PROCTOR_TIMEOUT.
set -eu

say() { printf '%s\n' "$*"; }
die() {
  code=$1
  shift
  printf 'proctor: %s\n' "$*" >&2
  exit "$code"
}

command -v curl >/dev/null 2>&1 || die 2 'curl is required'
command -v jq >/dev/null 2>&1 || die 2 'jq is required'
[ -n "${PROCTOR_URL:-}" ] || die 2 'set PROCTOR_URL to the API base URL, e.g. https://proctor.example.com'
[ -n "${PROCTOR_TOKEN:-}" ] || die 2 'set PROCTOR_TOKEN to an API token (prt_...)'
POLL_INTERVAL=${POLL_INTERVAL:-5}
PROCTOR_TIMEOUT=${PROCTOR_TIMEOUT:-3600}
case $POLL_INTERVAL in '' | *[!0-9]* | 0) die 2 "POLL_INTERVAL must be a positive number of seconds, not '$POLL_INTERVAL'" ;; esac
case $PROCTOR_TIMEOUT in '' | *[!0-9]*) die 2 "PROCTOR_TIMEOUT must be a number of seconds, not '$PROCTOR_TIMEOUT'" ;; esac
base=${PROCTOR_URL%/}
base=${base%/v1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# api METHOD PATH [BODY_FILE]: the response body lands in $tmp/response; exits 3 on any HTTP or API error.
# The token goes to curl on stdin, so it never appears in the process list.
api() {
  set -- "$1" "$2" "${3:-}"
  if [ -n "$3" ]; then
    # A POST is not retried: it could start the run twice.
    set -- "$1" "$2" -H 'Content-Type: application/json' --data-binary "@$3"
  else
    set -- "$1" "$2" --retry 3 --retry-connrefused
  fi
  method=$1
  path=$2
  shift 2
  status=$(printf 'header = "Authorization: Bearer %s"\n' "$PROCTOR_TOKEN" |
    curl -sS -K - -X "$method" -o "$tmp/response" -w '%{http_code}' --connect-timeout 20 --max-time 120 "$@" "$base$path") ||
    die 3 "$method $path: could not reach $base (curl exit $?)"
  case $status in
    2??) ;;
    *)
      message=$(jq -r '.message // empty' "$tmp/response" 2>/dev/null || true)
      [ -n "$message" ] || message=$(head -c 300 "$tmp/response")
      die 3 "$method $path: HTTP $status: ${message:-no response body}"
      ;;
  esac
}

# What the CI tells about the build: first variable set wins.
first() {
  for name in "$@"; do
    eval "value=\${$name:-}"
    if [ -n "$value" ]; then
      printf '%s' "$value"
      return 0
    fi
  done
  return 0
}
if [ -n "${PROCTOR_TRIGGER:-}" ]; then trigger=$PROCTOR_TRIGGER
elif [ "${GITHUB_ACTIONS:-}" = true ]; then trigger=GITHUB
elif [ "${GITLAB_CI:-}" = true ]; then trigger=GITLAB
else trigger=CI
fi
branch=$(first PROCTOR_BRANCH GITHUB_HEAD_REF GITHUB_REF_NAME CI_MERGE_REQUEST_SOURCE_BRANCH_NAME CI_COMMIT_REF_NAME BITBUCKET_BRANCH CIRCLE_BRANCH BUILDKITE_BRANCH BRANCH_NAME GIT_BRANCH)
commit=$(first PROCTOR_COMMIT GITHUB_SHA CI_COMMIT_SHA BITBUCKET_COMMIT CIRCLE_SHA1 BUILDKITE_COMMIT GIT_COMMIT)
message=$(first CI_COMMIT_MESSAGE BUILDKITE_MESSAGE)
repository=$(first GITHUB_REPOSITORY CI_PROJECT_PATH BITBUCKET_REPO_FULL_NAME)
actor=$(first GITHUB_ACTOR GITLAB_USER_LOGIN BUILDKITE_BUILD_CREATOR)

# Empty values are left out; long ones are cut to what the API accepts.
jq -n \
  --arg testPlanShortId "${PROCTOR_TEST_PLAN:-}" --arg trigger "$trigger" --arg branch "$branch" --arg commitHash "$commit" \
  --arg commitMessage "$message" --arg repository "$repository" --arg actor "$actor" \
  '{testPlanShortId: $testPlanShortId, trigger: $trigger[0:40], branch: $branch[0:300], commitHash: $commitHash[0:100],
    commitMessage: $commitMessage[0:5000], repository: $repository[0:300], actor: $actor[0:200]}
   | with_entries(select(.value != ""))' >"$tmp/start.json"

api POST /v1/run "$tmp/start.json"
run=$(jq -r '.run.shortId' "$tmp/response")
case $run in '' | null | *[!A-Za-z0-9_-]*) die 3 "POST /v1/run: unexpected response: $(head -c 300 "$tmp/response")" ;; esac
say "Proctor run $run started: $(jq -r '"\(.run.testCount) test(s)" + (if .run.testPlan then " of plan \"\(.run.testPlan.name)\" (\(.run.testPlan.shortId))" else "" end)' "$tmp/response")"
say "  $(jq -r '.run.url' "$tmp/response")"

started=$(date +%s)
last=
while :; do
  api GET "/v1/run/$run"
  status=$(jq -r '.status' "$tmp/response")
  if [ "$status" != "$last" ]; then
    say "  status: $status"
    last=$status
  fi
  case $status in COMPLETED | ERROR | CANCELLED) break ;; esac
  if [ "$PROCTOR_TIMEOUT" -gt 0 ] && [ $(($(date +%s) - started)) -ge "$PROCTOR_TIMEOUT" ]; then
    die 4 "run $run did not end within $PROCTOR_TIMEOUT s (still $status); see $(jq -r '.url' "$tmp/response")"
  fi
  sleep "$POLL_INTERVAL"
done

result=$(jq -r '.result // "none"' "$tmp/response")
error=$(jq -r '.error // empty' "$tmp/response")
say "Run $run $status, result $result${error:+: $error}"
[ "$status" = COMPLETED ] && [ "$result" = PASSED ] && exit 0

# One line per test that did not pass, with the reason.
api GET "/v1/run/$run?testCases=failed"
jq -r '.runTestCases[]
  | "  \(if .result == "FAILED" then "FAILED" else .status end)  \(.name)"
    + ((.evaluationThought // .error // .resultTitle // "") | gsub("\\s+"; " ") | .[0:300] | if . == "" then "" else ": " + . end)' \
  "$tmp/response"
exit 1
