// The peer scene of jobs/peer_jupedsim.sh, run with JuPedSim's C library (v1.4.2):
// its collision-free speed model (Tordeux et al. 2016, the model csm.c implements) in a
// 100 m x 100 m hall, N agents of radius 0.2 m, time gap 1 s and free speed 1.34 m/s on
// a square lattice at 2.5 per m^2 over x <= 79.7 m, walking to an exit on the east wall
// (x = 100 m) that nobody reaches in the run.  Prints the wall time of the steps alone
// (not the set-up) and agent-steps per second.
//   jupedsim_hall [N [STEPS [DT]]]       (defaults 20000, 500, 0.01)
#include <jupedsim/jupedsim.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

static void Check(bool ok, JPS_ErrorMessage err, const char* what)
{
    if(ok) return;
    std::fprintf(stderr, "jupedsim_hall: %s: %s\n", what, err ? JPS_ErrorMessage_GetMessage(err) : "failed");
    std::exit(1);
}

int main(int argc, char** argv)
{
    const long n = argc > 1 ? std::atol(argv[1]) : 20000;
    const long steps = argc > 2 ? std::atol(argv[2]) : 500;
    const double dt = argc > 3 ? std::atof(argv[3]) : 0.01;
    JPS_ErrorMessage err = nullptr;

    JPS_GeometryBuilder gb = JPS_GeometryBuilder_Create();
    const JPS_Point hall[] = {{0, 0}, {100, 0}, {100, 100}, {0, 100}};
    JPS_GeometryBuilder_AddAccessibleArea(gb, hall, 4);
    JPS_Geometry geo = JPS_GeometryBuilder_Build(gb, &err);
    Check(geo != nullptr, err, "geometry");

    // JuPedSim's defaults: neighbours a = 8, D = 0.1 m; walls a = 5, D = 0.02 m
    JPS_CollisionFreeSpeedModelBuilder mb = JPS_CollisionFreeSpeedModelBuilder_Create(8, 0.1, 5, 0.02);
    JPS_OperationalModel model = JPS_CollisionFreeSpeedModelBuilder_Build(mb, &err);
    Check(model != nullptr, err, "model");
    JPS_Simulation sim = JPS_Simulation_Create(model, geo, dt, &err);
    Check(sim != nullptr, err, "simulation");

    const JPS_Point exitPoly[] = {{99, 45}, {100, 45}, {100, 55}, {99, 55}};
    const JPS_StageId exitId = JPS_Simulation_AddStageExit(sim, exitPoly, 4, &err);
    Check(err == nullptr, err, "exit");
    JPS_JourneyDescription jd = JPS_JourneyDescription_Create();
    JPS_JourneyDescription_AddStage(jd, exitId);
    const JPS_JourneyId journey = JPS_Simulation_AddJourney(sim, jd, &err);
    Check(err == nullptr, err, "journey");

    // a square lattice at 2.5 per m^2 (spacing 1/sqrt(2.5) m), column by column from x = 0.3 m
    const double a = 1 / std::sqrt(2.5);
    const long perColumn = (long)((100 - 0.6) / a) + 1;
    for(long k = 0; k < n; k++) {
        JPS_CollisionFreeSpeedModelAgentParameters p{};
        p.position = {0.3 + a * (double)(k / perColumn), 0.3 + a * (double)(k % perColumn)};
        p.journeyId = journey;
        p.stageId = exitId;
        p.time_gap = 1.0;
        p.v0 = 1.34;
        p.radius = 0.2;
        JPS_Simulation_AddCollisionFreeSpeedModelAgent(sim, p, &err);
        Check(err == nullptr, err, "agent");
    }
    const auto t0 = std::chrono::steady_clock::now();
    for(long s = 0; s < steps; s++) Check(JPS_Simulation_Iterate(sim, &err), err, "iterate");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("jupedsim_hall: %zu agents (of %ld), %ld steps, wall %.3f s, %.4e agent-steps/s\n",
                JPS_Simulation_AgentCount(sim), n, steps, wall, (double)n * (double)steps / wall);
    JPS_Simulation_Free(sim);
    JPS_JourneyDescription_Free(jd);
    JPS_OperationalModel_Free(model);
    JPS_CollisionFreeSpeedModelBuilder_Free(mb);
    JPS_Geometry_Free(geo);
    JPS_GeometryBuilder_Free(gb);
    return 0;
}
