# one-node.sh - sourced by tests/slurm/test_slurm.sh and
# scripts/slurm/device-cluster.sh: the slurm.conf lines of a one-node test
# cluster whose daemons run as root with every file in one work folder.
# The caller adds what differs: where munge and the plugins are, GRES, the
# node and its partitions.
#
#   slurm_one_node_conf NAME WORK_DIR >"$SLURM_CONF"
slurm_one_node_conf() {
  cat <<CONF
ClusterName=$1
SlurmctldHost=$(hostname -s)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$2/state
SlurmdSpoolDir=$2/spool
SlurmctldPidFile=$2/slurmctld.pid
SlurmdPidFile=$2/slurmd.pid
SlurmctldLogFile=$2/slurmctld.log
SlurmdLogFile=$2/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
CONF
}
