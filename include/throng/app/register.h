/* register — the one place that names the built-in steppers and modules (see
   src/app/register.c). */
#pragma once
#include <throng/throng.h>

/* Register every built-in stepper (-solver NAME) and every module of the loop, in their
   order (once; later calls do nothing).  Not collective. */
PetscErrorCode ThrongRegisterAll(void);
