/* agents — the per-agent tables: the table PREFIX.agents.csv (radius, population,
   source, start, exit of every agent) and the per-id arrays that grow when agents arrive
   (see src/crowd/agents.c). */
#pragma once
#include <throng/crowd/crowd.h>
#include <stdio.h>

/* The radii and floors of origin of the agents of the start (collective), of an
   arrival; checkpoints; the table (rank 0, pass the passages of the report, n of them). */
PetscErrorCode AgentsCreated(Sim *s, Crowd *c);
void           AgentsArrived(Crowd *c, const ParticleRec *rec, PetscInt floor);
PetscErrorCode AgentsCheckpointWrite(const Sim *s, const Crowd *c, hid_t grp, hid_t dxpl);
PetscErrorCode AgentsCheckpointRead(Sim *s, Crowd *c, hid_t grp, const char *path);
PetscErrorCode AgentsTableWrite(const Sim *s, const Crowd *c, const ExitRec *pass, PetscInt npass, FILE *f);
/* m new agents (ids nspeed .. nspeed + m - 1, recs, pops their populations, -1: the
   defaults) arrive now: the per-id tables and the routes grow (every rank). */
PetscErrorCode CrowdAgentsAdd(Sim *s, Crowd *c, PetscInt m, const ParticleRec *recs, const PetscInt *pops);
