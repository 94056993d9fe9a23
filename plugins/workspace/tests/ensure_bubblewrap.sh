#!/bin/sh
# The workspace tox environments' first step: make sure Debian's bubblewrap is here for the
# sandbox tests (`workspace_run`). When it is missing and this runs as root, it is installed
# from the system's packages; otherwise nothing is done and the sandbox tests skip, saying why.
if command -v "${RETINUE_BWRAP:-bwrap}" >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    # Other environments may be installing their packages at the same time: wait for the lock.
    apt-get -o DPkg::Lock::Timeout=600 update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq bubblewrap
fi
exit 0
