#!/bin/sh
# Runs a command in a network namespace of its own whose only interface is loopback.
#
# Ray's servers (GCS, raylets, workers) listen on every interface of the machine, whatever
# node address they are given; inside this namespace the only interface is `lo`, so the
# cluster the tests start is reachable on 127.0.0.0/8 alone, as every test here must be.
# Needs root (CI) or unprivileged user namespaces; without either it fails, naming why.
set -eu
if ! command -v ip >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
fi
if ! command -v ip >/dev/null 2>&1; then
    echo "loopback_only.sh: the ip command (iproute2) is missing; it brings loopback up" >&2
    exit 1
fi
inner='ip link set lo up && exec "$@"'
if unshare --net true 2>/dev/null; then
    exec unshare --net sh -c "$inner" sh "$@"
fi
if unshare --user --map-root-user --net true 2>/dev/null; then
    exec unshare --user --map-root-user --net sh -c "$inner" sh "$@"
fi
echo "loopback_only.sh: cannot make a network namespace (unshare --net): run as root or" \
    "allow unprivileged user namespaces, or Ray's servers would listen on every interface" >&2
exit 1
