#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, to try `memsub_sweep run --slurm` and for CI:
#   scripts/slurm_local_cluster.sh start    install slurm-wlm and munge when missing (root,
#                                           apt-get), configure, start munged, slurmctld and
#                                           slurmd, wait until the node is idle
#   scripts/slurm_local_cluster.sh status   the daemons and sinfo
#   scripts/slurm_local_cluster.sh stop     stop the daemons it started
# Needs root. No systemd: the daemons are started directly, and there are no cgroups
# (proctrack/linuxproc, task/none), so it also runs in a container. The configuration goes to
# /etc/slurm/slurm.conf, where Slurm's commands look by default, but only when that file is
# absent or was written by this script: a machine with a Slurm configuration of its own is left
# alone. State, spool and logs: $MEMSUB_SLURM_DIR (default build/slurm-local in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."

state="${MEMSUB_SLURM_DIR:-$PWD/build/slurm-local}"
conf=/etc/slurm/slurm.conf
marker="# written by memsub's scripts/slurm_local_cluster.sh"
munge_pid=/run/munge/munged.pid

die() { echo "slurm_local_cluster: $*" >&2; exit 1; }

need_root() {
    [ "$(id -u)" -eq 0 ] || die "needs root (it installs packages and starts the Slurm daemons)"
}

is_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

install_packages() {
    local missing=()
    for p in slurm-wlm munge; do
        is_installed "$p" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    echo "slurm_local_cluster: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    # The packages' scripts would start the daemons through systemd or init scripts; this
    # script starts them itself with its own configuration, so service starts are refused
    # while installing (policy-rc.d, exit 101 = "action forbidden").
    local policy=/usr/sbin/policy-rc.d own_policy=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && own_policy=1
    fi
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || {
        [ $own_policy -eq 1 ] && rm -f "$policy"
        die "apt-get install ${missing[*]} failed"
    }
    [ $own_policy -eq 1 ] && rm -f "$policy"
    return 0
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { [ -f "$1" ] && cat "$1" 2>/dev/null || true; }

write_conf() {
    if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
        die "$conf exists and was not written by this script: not touching a real cluster's configuration"
    fi
    local host node
    host=$(hostname -s)
    # slurmd -C prints this node's line (CPUs, sockets, cores, threads, RealMemory) as Slurm
    # sees the machine, so the node registers without a mismatch.
    node=$(slurmd -C | grep '^NodeName=')
    [ -n "$node" ] || die "slurmd -C did not describe this node"
    mkdir -p "$(dirname "$conf")" "$state/ctld" "$state/d"
    cat >"$conf" <<EOF
$marker
# A one-node cluster on $host; state and logs in $state.
ClusterName=memsub-local
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
# No cgroups (a container without systemd): processes tracked by parentage, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# Sweeps index their array tasks by configuration: room for large ones.
MaxArraySize=100001
# Ended jobs stay visible to scontrol (their state, such as TIMEOUT) for 10 minutes.
MinJobAge=600
KillWait=5
$node State=UNKNOWN
PartitionName=memsub Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    pid_alive "$(pid_of $munge_pid)" && return 0
    mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
    chmod 0700 /etc/munge /var/lib/munge /var/log/munge
    chmod 0755 /run/munge
    chmod 0400 /etc/munge/munge.key
    runuser -u munge -- munged || die "munged did not start (see /var/log/munge/munged.log)"
}

start() {
    need_root
    install_packages
    write_conf
    start_munge
    munge -n | unmunge >/dev/null || die "munge does not work (see /var/log/munge/munged.log)"
    # Each daemon forks into the background and writes its pid file.
    pid_alive "$(pid_of "$state/slurmctld.pid")" || slurmctld || die "slurmctld did not start (see $state/slurmctld.log)"
    pid_alive "$(pid_of "$state/slurmd.pid")" || slurmd || die "slurmd did not start (see $state/slurmd.log)"
    local host i
    host=$(hostname -s)
    for i in $(seq 1 60); do
        case "$(sinfo -h -N -n "$host" -o %t 2>/dev/null || true)" in
        idle*) echo "slurm_local_cluster: node $host idle, partition memsub"; return 0 ;;
        down* | drain*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
        esac
        sleep 1
    done
    sinfo >&2 || true
    die "the node did not become idle in 60 s (logs: $state/slurmctld.log, $state/slurmd.log)"
}

stop_pid() { # name pidfile
    local pid
    pid=$(pid_of "$2")
    if pid_alive "$pid"; then
        kill "$pid"
        for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.1; done
        pid_alive "$pid" && kill -9 "$pid"
        echo "slurm_local_cluster: stopped $1 ($pid)"
    fi
    return 0
}

stop() {
    need_root
    stop_pid slurmd "$state/slurmd.pid"
    stop_pid slurmctld "$state/slurmctld.pid"
    stop_pid munged "$munge_pid"
}

status() {
    local running=0 name file
    for name in munged slurmctld slurmd; do
        file="$state/$name.pid"
        [ $name = munged ] && file=$munge_pid
        if pid_alive "$(pid_of "$file")"; then
            echo "$name: running ($(pid_of "$file"))"
        else
            echo "$name: not running"; running=1
        fi
    done
    [ $running -eq 0 ] && sinfo
    return $running
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
*) echo "usage: scripts/slurm_local_cluster.sh start|stop|status" >&2; exit 2 ;;
esac
