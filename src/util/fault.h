/* Faults compiled in on purpose for control runs.
 *
 * A control run builds the engine with one of its guarantees broken (a
 * CMake option ZKPIPE_FAULT_*, off by default) and measures what the
 * guarantee was preventing, beside a normal build under the same settings.
 * Such a build is not fit for anything else, so every program of it says so
 * where it starts: the engine when it is created, `zkpipe version`. The
 * faults:
 *
 *   ZKPIPE_FAULT_EARLY_RELEASE  a partition's reservation goes back to the
 *       budget when synthesis hands the partition on, before the prover has
 *       freed its a, b, c (mem/mem.h, zkp_mem_fault_release_early;
 *       docs/MEMORY.md, "The seed's fault, recreated"). */
#ifndef ZKP_UTIL_FAULT_H
#define ZKP_UTIL_FAULT_H

/* The fault compiled into this build ("early_release"), or NULL in a
 * normal build: for reports that record which build they measured. */
const char *zkp_fault_name(void);

/* One line naming the fault compiled into this build and what it breaks,
 * or NULL in a normal build. */
const char *zkp_fault_warning(void);

#endif
