#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the test of `sweep --slurm` (CI calls it).
#
#   scripts/slurm-local.sh start DIR   # as root: munged (if not running), slurmctld, slurmd; prints SLURM_CONF=DIR/slurm.conf
#   scripts/slurm-local.sh stop DIR    # stops what start started, by the pids in DIR
#
# Needs Debian's slurm-wlm and munge (apt-get install -y slurm-wlm munge). The daemons run as
# root with their state, spool, logs and pid files in DIR; their ports are chosen free, so two
# clusters on one machine do not meet. Every daemon is stopped by its pid file, never by name.
set -euo pipefail

cmd=${1:-}
D=${2:-}
if [ -z "$cmd" ] || [ -z "$D" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

stop_pid_file() {
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$f"
}

# A port nothing listens on, from a range the kernel does not hand out to clients.
free_port() {
  local p
  while :; do
    p=$(shuf -i 20000-30000 -n 1)
    ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
  done
}

case "$cmd" in
start)
  command -v slurmctld >/dev/null && command -v munged >/dev/null || { echo "$0: slurm-wlm and munge are not installed" >&2; exit 1; }
  mkdir -p "$D/state" "$D/spool" "$D/log"
  D=$(cd "$D" && pwd)
  # munged: one per machine. Start it only if none answers, and remember that we did.
  if ! munge -n </dev/null >/dev/null 2>&1; then
    [ -f /etc/munge/munge.key ] || { echo "$0: /etc/munge/munge.key is missing (reinstall munge)" >&2; exit 1; }
    mkdir -p /run/munge && chown munge:munge /run/munge
    su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=/run/munge/munged.pid"
    cp /run/munge/munged.pid "$D/munged.pid"
  fi
  H=$(hostname)
  cat >"$D/slurm.conf" <<CONF
ClusterName=local
SlurmctldHost=$H
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/ctld.log
SlurmdLogFile=$D/log/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$H CPUs=$(nproc) RealMemory=2000 State=UNKNOWN
PartitionName=main Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld -f "$D/slurm.conf"
  slurmd -f "$D/slurm.conf"
  # Ready when the node is idle (it registers within seconds).
  for _ in $(seq 1 60); do
    if SLURM_CONF="$D/slurm.conf" sinfo -h -o '%t' 2>/dev/null | grep -q '^idle'; then
      echo "SLURM_CONF=$D/slurm.conf"
      exit 0
    fi
    sleep 0.5
  done
  echo "$0: the node did not become idle; see $D/log/" >&2
  exit 1
  ;;
stop)
  stop_pid_file "$D/slurmd.pid"
  stop_pid_file "$D/slurmctld.pid"
  # munged only if this cluster started it.
  if [ -f "$D/munged.pid" ]; then
    stop_pid_file "$D/munged.pid"
    rm -f /run/munge/munged.pid
  fi
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
