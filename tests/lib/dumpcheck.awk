# dumpcheck.awk: what must hold in every `cbtrace dump` of a test program.
#
# Input: the dump, one event a line (trace/cbtrace.h, cb_event_print):
#   INDEX T<tid> KIND [OPERANDS] [@ FILE:LINE] [in FUNCTION]
# Variables: src = the program's source file name (e.g. rww.c); lib = the
# name of a library the program is built against (libglib-2.0, from its
# cbtools-pkg marker) or "": events located in it are that library's
# watched code, neither foreign nor required to name their variables.
# Output: first a summary line of counts,
#   threads=N creates=N starts=N joins=N exits=N begins=N ends=N locks=N
#   unlocks=N reads=N writes=N waits=N signals=N barriers=N unclosed=N held=N
# then one line per problem found, each starting with "problem: " (the
# structure: threads, locks, blocks) or "foreign: " (an event from outside
# the program's source, or of an unnamed address).
#
# Checked: every line parses; threads are T1..TN with no gap; each thread
# but T1 is created once, starts (from its creator) before any other event
# of its own and after its create; nothing of a thread follows its join;
# per thread, an unlock releases the lock it took last (LIFO), and a mutex
# or write lock is never held by two threads at once; per thread, `end F`
# closes the innermost open `begin F`; T1 starts from T0; every access and
# synchronisation event (create excepted: the tool gives it no location)
# has a location in the program's own source (nothing from libc or
# ld.so) and names a variable (a raw address would be a stack slot or an
# unknown object).  Blocks still open and locks still held at the end are
# counted (unclosed, held): a crash leaves some, a normal end none.

function problem(msg) {
   problems[++nproblems] = "problem: line " NR ": " msg " [" $0 "]"
}

# A problem of where an event comes from (libc, crt, the stack), kept apart
# from problems of structure so that a test can tell them apart.
function foreign(msg) {
   problems[++nproblems] = "foreign: line " NR ": " msg " [" $0 "]"
}

# The operand text between the kind and the location / function suffix.
function operands(   s) {
   s = $0
   sub(/^[0-9]+ T[0-9]+ [a-z-]+ ?/, "", s)
   sub(/ in [^ ]+$/, "", s)
   sub(/ ?@ [^ ]+$/, "", s)
   return s
}

# The variable of a lock/unlock: everything before the mode word.
function lock_var(ops,   n, w, i, v) {
   n = split(ops, w, " ")
   v = ""
   for (i = 1; i <= n; i++) {
      if (w[i] == "mutex" || w[i] == "rd" || w[i] == "wr")
         break
      v = (v == "" ? w[i] : v " " w[i])
   }
   return v
}

function lock_mode(ops,   n, w, i) {
   n = split(ops, w, " ")
   for (i = 1; i <= n; i++)
      if (w[i] == "mutex" || w[i] == "rd" || w[i] == "wr")
         return w[i]
   return "?"
}

# The location "FILE:LINE" after '@', or "".
function location(   m) {
   if (match($0, / @ [^ ]+/))
      return substr($0, RSTART + 3, RLENGTH - 3)
   return ""
}

function in_program(loc,   f) {
   f = loc
   sub(/:[0-9]+$/, "", f)
   sub(/.*\//, "", f)
   return f == src
}

# The location is in the library lib (libglib-2.0.so.0.7400.6@0x...).
function in_lib(loc,   f) {
   if (lib == "")
      return 0
   f = loc
   sub(/.*\//, "", f)
   return index(f, lib ".so") == 1
}

BEGIN { maxtid = 0 }

{
   if ($0 !~ /^[0-9]+ T[0-9]+ [a-z-]+/) {
      problem("does not parse as INDEX T<tid> KIND")
      next
   }
   tid = substr($2, 2) + 0
   kind = $3
   seen[tid] = 1
   if (tid > maxtid)
      maxtid = tid
   ops = operands()

   if (tid in joined)
      problem("T" tid " has an event after it was joined")
   if (tid != 1 && !(tid in started) && kind != "start")
      problem("T" tid " has an event before its start")

   located = (kind ~ /^(read|write|lock|unlock|wait|signal|broadcast|barrier-enter|barrier-leave|join|atomic-begin|atomic-end)$/)
   inlib = 0
   if (located) {
      loc = location()
      if (loc == "")
         foreign(kind " without a file:line")
      else if (in_lib(loc))
         inlib = 1
      else if (!in_program(loc))
         foreign(kind " outside " src " (libc, crt, ld.so or the tool?)")
   }

   if (kind == "read" || kind == "write") {
      count[kind]++
      v = ops
      sub(/ size .*/, "", v)
      # 0x0 is a null-pointer access (crash.c), never a stack slot.
      if (!inlib && (v == "" || (v ~ /^0x[0-9a-f]+$/ && v != "0x0") || v == "?"))
         foreign(kind " of an unnamed address " v " (a stack slot?)")
   } else if (kind == "lock") {
      count["lock"]++
      v = lock_var(ops)
      mode = lock_mode(ops)
      if (mode != "rd") {
         for (t in holder)
            if (t != tid && (t SUBSEP v) in holding)
               problem("lock " v " taken by T" tid " while T" t " holds it")
      }
      nheld[tid]++
      heldstack[tid, nheld[tid]] = v
      holding[tid, v]++
      holder[tid] = 1
   } else if (kind == "unlock") {
      count["unlock"]++
      v = lock_var(ops)
      if (nheld[tid] == 0)
         problem("T" tid " unlocks " v " which it does not hold")
      else if (heldstack[tid, nheld[tid]] != v)
         problem("T" tid " unlocks " v " but last took " heldstack[tid, nheld[tid]] " (not LIFO)")
      else {
         nheld[tid]--
         if (--holding[tid, v] == 0)
            delete holding[tid, v]
      }
   } else if (kind == "begin") {
      count["begin"]++
      nopen[tid]++
      openstack[tid, nopen[tid]] = ops
   } else if (kind == "end") {
      count["end"]++
      if (nopen[tid] == 0)
         problem("T" tid " ends " ops " with no block open")
      else if (openstack[tid, nopen[tid]] != ops)
         problem("T" tid " ends " ops " but the innermost open block is " openstack[tid, nopen[tid]])
      else
         nopen[tid]--
   } else if (kind == "create") {
      count["create"]++
      child = ops
      sub(/^T/, "", child)
      child += 0
      if (child in creator)
         problem("T" child " created twice")
      creator[child] = tid
      if (child in seen)
         problem("T" child " ran before its create")
   } else if (kind == "start") {
      count["start"]++
      parent = ops
      sub(/^from T/, "", parent)
      parent += 0
      if (tid in started)
         problem("T" tid " started twice")
      started[tid] = 1
      if (tid == 1) {
         if (parent != 0)
            problem("T1 (main) says it was started from T" parent)
      } else if (!(tid in creator))
         problem("T" tid " started without a create")
      else if (creator[tid] != parent)
         problem("T" tid " says it was started from T" parent " but T" creator[tid] " created it")
   } else if (kind == "join") {
      count["join"]++
      child = ops
      sub(/^T/, "", child)
      child += 0
      joined[child] = 1
   } else if (kind == "exit") {
      count["exit"]++
   } else if (kind == "wait") {
      count["wait"]++
   } else if (kind == "signal" || kind == "broadcast") {
      count["signal"]++
   } else if (kind == "barrier-enter" || kind == "barrier-leave") {
      count["barrier"]++
   }
}

END {
   for (t = 1; t <= maxtid; t++)
      if (!(t in seen))
         problems[++nproblems] = "problem: no event of T" t " (threads are not T1..T" maxtid ")"
   unclosed = 0
   held = 0
   for (t in nopen)
      unclosed += nopen[t]
   for (t in nheld)
      held += nheld[t]
   printf "threads=%d creates=%d starts=%d joins=%d exits=%d begins=%d ends=%d locks=%d unlocks=%d reads=%d writes=%d waits=%d signals=%d barriers=%d unclosed=%d held=%d\n", \
      maxtid, count["create"], count["start"], count["join"], count["exit"], \
      count["begin"], count["end"], count["lock"], count["unlock"], \
      count["read"], count["write"], count["wait"], count["signal"], \
      count["barrier"], unclosed, held
   for (i = 1; i <= nproblems; i++)
      print problems[i]
}
