# bench/profile.sh: PostgreSQL's CPU by what it was doing, from `perf script -F comm,ip,sym` of
# a system-wide recording (each sample: a line with the process's name, its stack innermost
# first, one frame a line, then a blank line). Of the samples of PostgreSQL's processes, prints
# each phase's share in percent ("phase NAME PERCENT"): the outermost phase function on the
# sample's stack names its phase (a trigger's statements run an executor of their own inside
# the statement's, and count as the statement's triggers); a sample in none of them is in the
# backend's own loop (PostgresMain) or outside any backend's work ("other": the WAL writer and
# the other background processes, the kernel's work for them). And each part's share ("part
# NAME PERCENT"): the samples with its function anywhere on the stack, whatever the phase.
BEGIN {
  n = split("pq_getbyte GetCachedPlan standard_ExecutorStart standard_ExecutorRun " \
            "standard_ExecutorFinish standard_ExecutorEnd CommitTransactionCommand", top, " ")
  for (i = 1; i <= n; i++) is_phase[top[i]] = 1
  m = split("index_getnext_slot heap_update heap_insert ExecInsertIndexTuples " \
            "ExecCheckIndexConstraints ExecConstraints plpgsql_exec_function SPI_execute_snapshot " \
            "plpgsql_exec_trigger jsonb_in array_in XLogInsert XLogFlush", parts, " ")
  for (i = 1; i <= m; i++) is_part[parts[i]] = 1
}
function sample(   i, p, in_main) {
  if (comm != "postgres") return
  total++
  p = "other"
  for (i = depth; i >= 1; i--) {
    if (stack[i] in is_phase) { p = stack[i]; break }
    if (stack[i] == "PostgresMain") in_main = 1
  }
  if (p == "other" && in_main) p = "PostgresMain"
  phase[p]++
  split("", seen)
  for (i = 1; i <= depth; i++)
    if (stack[i] in is_part && !(stack[i] in seen)) { seen[stack[i]] = 1; part[stack[i]]++ }
}
/^[^ \t]/ { if (comm != "") sample(); comm = $1; depth = 0; next }
/^[ \t]+[0-9a-f]+ / { stack[++depth] = $2; next }
END {
  if (comm != "") sample()
  if (!total) exit
  for (k in phase) printf "phase %s %.4f\n", k, 100 * phase[k] / total
  for (k in part) printf "part %s %.4f\n", k, 100 * part[k] / total
}
