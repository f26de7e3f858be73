#!/bin/sh
# The stand-in server: it replays for REPLAY_SECONDS, then accepts
# connections until it is stopped.
rm -f /tmp/accepting
echo "LOG:  database system was interrupted; last known up at $(date)"
echo "LOG:  redo starts; replaying the write-ahead log for ${REPLAY_SECONDS:-45}s"
sleep "${REPLAY_SECONDS:-45}"
echo "LOG:  redo done"
touch /tmp/accepting
echo "LOG:  database system is ready to accept connections"
trap 'echo "LOG:  received fast shutdown request"; exit 0' TERM INT
while :; do sleep 1; done
