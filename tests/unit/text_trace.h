/* text_trace.h: the trace a predict unit test writes by hand (the text
 * form of cb_trace_from_text) and its analysis, shared by the tests that
 * load one trace after another.  Header-only, as tap_ok.h: each test
 * program is one file.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#ifndef CB_TEXT_TRACE_H
#define CB_TEXT_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

static cb_trace T;
static cbp_analysis A;
static int analysed;

/* T from text, the trace (and analysis) before it freed.  A form the test
 * got wrong is no test: bail out. */
static void load_text(const char *text) {
   if (analysed) cbp_analysis_free(&A);
   analysed = 0;
   cb_trace_free(&T);
   memset(&T, 0, sizeof T);
   cb_error err;
   if (cb_trace_from_text(text, &T, &err)) {
      printf("# text form: %s\nBail out! text form rejected\n", err.msg);
      exit(1);
   }
}

/* T from text, then A: its candidates and schedules (cbp_analyze). */
static __attribute__((unused)) void analyse_text(const char *text, cbp_options o) {
   load_text(text);
   cbp_analyze(&T, &o, &A);
   analysed = 1;
}

/* Frees T and A at the end of a test program. */
static __attribute__((unused)) void text_trace_free(void) {
   if (analysed) cbp_analysis_free(&A);
   analysed = 0;
   cb_trace_free(&T);
}

#endif /* CB_TEXT_TRACE_H */
