#!/usr/bin/env bash
# A rate-limited cluster on one machine (issue 29): runs COMMAND (e.g. mpiexec -n 2
# run-experiment ... --set cluster.backend=mpi) inside a private network namespace whose
# loopback is shaped to RATE (tc tbf) with DELAY per packet (tc netem), and MPICH (ch4:ucx)
# forced onto TCP over that loopback: MPIR_CVAR_NOLOCAL=1 (local ranks do not use shared
# memory), UCX_TLS=tcp, UCX_NET_DEVICES=lo. Traffic never leaves the namespace's loopback
# (127.0.0.1); the host's network is not touched.
#
# What the emulation is: every rank's traffic passes the loopback's ONE egress queue, so the
# ranks share RATE (a shared medium, not a switch with a full-duplex link per node). A
# collective in which every node sends b bytes takes N b / RATE here where a switched network
# takes b / RATE: model it with bandwidth RATE / N per node (results/clock/validation.md).
#
# Usage: scripts/netem-cluster.sh --rate RATE [--delay DELAY] [--mtu BYTES] [--counters FILE]
#                                 -- COMMAND [ARGS...]
#   RATE   tc rate: 100mbit, 1gbit, 10gbit, ...
#   DELAY  tc time added to every packet, e.g. 50us (needs sch_netem; default none)
#   MTU    the loopback's MTU (default 1500, Ethernet's; loopback's own 65536 is not a LAN)
#   FILE   JSON written at the end: the bytes and packets the loopback queue sent and dropped,
#          and how many it delayed for the rate (proof that the traffic crossed the shaped link)
# Exit code: COMMAND's; 2 without the privilege to make a namespace (nothing is created then).
# On every exit path (normal end, failure, Ctrl-C, SIGTERM) the command's processes are killed
# and the namespace (with its qdiscs) is deleted.
set -u
rate="" delay="0us" mtu=1500 counters=""
usage="usage: $0 --rate RATE [--delay DELAY] [--mtu BYTES] [--counters FILE] -- COMMAND..."
# value OPTION ARGS...: the option's value, or exit 2 (a bare `shift 2` would loop forever)
value() { [[ $# -ge 2 && -n $2 && $2 != -- ]] || { echo "netem-cluster: $1 needs a value ($usage)" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --rate) value "$@"; rate=$2; shift 2 ;;
    --delay) value "$@"; delay=$2; shift 2 ;;
    --mtu) value "$@"; mtu=$2; shift 2 ;;
    --counters) value "$@"; counters=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ -n $rate && $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
[[ $rate =~ ^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit)$ ]] ||
  { echo "netem-cluster: --rate $rate: expected a tc rate such as 100mbit or 1gbit" >&2; exit 2; }
[[ $delay =~ ^[0-9]+(\.[0-9]+)?(us|ms|s)$ ]] ||
  { echo "netem-cluster: --delay $delay: expected a tc time such as 50us or 1ms" >&2; exit 2; }
[[ $mtu =~ ^[0-9]+$ ]] && ((mtu >= 576 && mtu <= 65536)) ||
  { echo "netem-cluster: --mtu $mtu: expected 576..65536" >&2; exit 2; }
for tool in ip tc; do
  command -v $tool >/dev/null 2>&1 ||
    { echo "netem-cluster: $tool not found (apt-get install iproute2)" >&2; exit 2; }
done
if [[ $(id -u) != 0 ]]; then
  echo "netem-cluster: needs root (network namespaces and tc); nothing was created" >&2; exit 2
fi

# The tbf bucket: a real link serialises every byte at its rate, so the bucket is small: 200 us
# at the rate, at least two packets (tbf paces with high-resolution timers and cuts the
# loopback's GSO super-packets to fit). Measured here with one TCP stream (python sockets, 10 MB
# / 100 MB) at 1gbit: a 20 us bucket delivers 0.71 Gbit/s of payload (the timer cannot keep up),
# 200 us 0.946 (what TCP carries on a real 1 Gbit/s Ethernet at MTU 1500: 1448 / 1538 = 0.941),
# 2 ms 0.962; but a 2 ms bucket (this script's first version: 250 KB at 1gbit) lets a sparse
# step's ~40 KB through at memory speed: measured 0.1 ms where the link needs 0.5 ms
# (results/clock/validation.md). SL_NETEM_BURST_US overrides the 200 us for such experiments.
bits_per_s() {  # 100mbit -> 100000000
  local v=${1%%[a-z]*} u=${1##*[0-9.]}
  case $u in bit) m=1 ;; kbit) m=1000 ;; mbit) m=1000000 ;; gbit) m=1000000000 ;; esac
  awk -v v="$v" -v m="$m" 'BEGIN { printf "%.0f", v * m }'
}
burst_us=${SL_NETEM_BURST_US:-200}
[[ $burst_us =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  { echo "netem-cluster: SL_NETEM_BURST_US=$burst_us: want microseconds (a number)" >&2; exit 2; }
burst=$(awk -v r="$(bits_per_s "$rate")" -v mtu="$mtu" -v us="$burst_us" 'BEGIN { b = r / 8 * us * 1e-6; if (b < 2 * mtu) b = 2 * mtu; printf "%d", b }')

ns="sl-netem-$$"
child=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [[ -n $child ]] && kill -0 "$child" 2>/dev/null; then
    kill -TERM -- "-$child" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$child" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$child" 2>/dev/null
  fi
  # Anything still running inside the namespace (a rank that escaped the process group).
  if ip netns list 2>/dev/null | grep -qw "$ns"; then
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  fi
  exit "$rc"
}
if ! ip netns add "$ns" 2>/tmp/netem-cluster.$$.err; then
  echo "netem-cluster: cannot create a network namespace ($(tr '\n' ' ' </tmp/netem-cluster.$$.err)); nothing was created" >&2
  rm -f /tmp/netem-cluster.$$.err
  exit 2
fi
rm -f /tmp/netem-cluster.$$.err
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

in_ns() { ip netns exec "$ns" "$@"; }
in_ns sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 && in_ns ip link set lo mtu "$mtu" && in_ns ip link set lo up || { echo "netem-cluster: loopback setup failed" >&2; exit 1; }
# tbf paces the queue at RATE; with a DELAY, netem (root) delays every packet first. Kernels
# without sch_netem (this project's CI machines) cannot add a delay: the link's latency is then
# the loopback TCP stack's own, which the clock validation measures and fits.
if [[ $delay =~ ^0+(\.0+)?(us|ms|s)$ ]]; then
  in_ns tc qdisc add dev lo root handle 10: tbf rate "$rate" burst "$burst" latency 1s ||
    { echo "netem-cluster: tc tbf setup failed (kernel without sch_tbf?)" >&2; exit 1; }
else
  if ! in_ns tc qdisc add dev lo root handle 1: netem delay "$delay" limit 100000 2>/dev/null; then
    echo "netem-cluster: --delay $delay needs the kernel's sch_netem, which this kernel lacks; run without --delay" >&2
    exit 2
  fi
  in_ns tc qdisc add dev lo parent 1:1 handle 10: tbf rate "$rate" burst "$burst" latency 1s ||
    { echo "netem-cluster: tc tbf setup failed (kernel without sch_tbf?)" >&2; exit 1; }
fi
echo "netem-cluster: namespace $ns, loopback mtu $mtu, rate $rate (burst $burst B), delay $delay per packet" >&2

# The command in its own process group (so cleanup reaches every rank), MPICH on TCP.
setsid ip netns exec "$ns" env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo \
  MPIR_CVAR_CH4_NETMOD=ucx "$@" &
child=$!
wait "$child"
rc=$?
child=""

stats=$(in_ns tc -s qdisc show dev lo)
sent=$(awk '/qdisc tbf/ { f = 1 } f && /Sent/ { print $2, $4, $7, $9; exit }' <<<"$stats" | tr -d ',')
read -r bytes packets dropped overlimits <<<"${sent:-0 0 0 0}"
echo "netem-cluster: the shaped loopback carried $bytes bytes in $packets packets ($overlimits held for the rate, $dropped dropped)" >&2
if [[ -n $counters ]]; then
  printf '{"namespace": "%s", "rate": "%s", "rate_bits_per_s": %s, "delay": "%s", "mtu": %s, "bytes": %s, "packets": %s, "dropped": %s, "overlimits": %s, "exit_code": %s}\n' \
    "$ns" "$rate" "$(bits_per_s "$rate")" "$delay" "$mtu" "$bytes" "$packets" "$dropped" "$overlimits" "$rc" >"$counters.tmp.$$" &&
    mv "$counters.tmp.$$" "$counters" || {
      rm -f "$counters.tmp.$$"
      echo "netem-cluster: --counters $counters: cannot write it (the command's exit code was $rc)" >&2
      [[ $rc -ne 0 ]] || rc=1
    }
fi
exit "$rc"
