#!/bin/sh
# Before any baton container starts: wait for Temporal, create the namespace, and register
# baton's search attributes (BatonAgent, BatonStatus, BatonTeam, BatonVariant, BatonTenant: Keyword; BatonHandoffs, BatonPendingApprovals: Int;
# BatonApprovalDue: Datetime; BatonApprovers, BatonApprovalTools: KeywordList), so the first
# chain started through the service can set them. Run by temporalio/admin-tools; idempotent.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:=default}"
t() { temporal "$@" --address "$TEMPORAL_ADDRESS"; }

# Run "$@" until it succeeds (a new namespace takes a few seconds to be served everywhere).
retry() {
  n=0
  until "$@"; do
    n=$((n + 1))
    [ "$n" -ge 60 ] && { echo "gave up: $*"; return 1; }
    sleep 2
  done
}

retry t operator cluster health >/dev/null
t operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
  t operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention 7d
retry t operator search-attribute list --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1

add() {
  if t operator search-attribute list --namespace "$TEMPORAL_NAMESPACE" | grep -qw "$1"; then return 0; fi
  retry t operator search-attribute create --name "$1" --type "$2" --namespace "$TEMPORAL_NAMESPACE"
}
add BatonAgent Keyword
add BatonStatus Keyword
add BatonHandoffs Int
add BatonTeam Keyword
add BatonVariant Keyword
add BatonTenant Keyword
add BatonApprovalDue Datetime
add BatonApprovers KeywordList
add BatonApprovalTools KeywordList
add BatonPendingApprovals Int
listed() { [ "$(t operator search-attribute list --namespace "$TEMPORAL_NAMESPACE" | grep -cwE 'BatonAgent|BatonStatus|BatonHandoffs|BatonTeam|BatonVariant|BatonTenant|BatonApprovalDue|BatonApprovers|BatonApprovalTools|BatonPendingApprovals')" -ge 10 ]; }
retry listed
echo "baton's search attributes are registered in $TEMPORAL_NAMESPACE"
